/**
 * @constraint: declarative validation of arguments and input fields (rules documented on the
 * directive in schema/directives.graphql). For every field with a constrained argument (directly
 * or anywhere inside its input objects and lists) a checker is compiled once, at schema build, and
 * runs before the resolver; all violations of a field are reported together in one BAD_REQUEST.
 */
import { getDirective, MapperKind, mapSchema } from '@graphql-tools/utils';
import {
  defaultFieldResolver,
  getNullableType,
  isInputObjectType,
  isListType,
  isScalarType,
  type GraphQLFieldResolver,
  type GraphQLInputField,
  type GraphQLArgumentConfig,
  type GraphQLInputType,
  type GraphQLSchema,
} from 'graphql';
import { validationFailed, type FieldPath, type Violation } from '../errors.ts';
import { createJsonSchemaValidator } from '../json-schema.ts';

interface ConstraintRules {
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  min?: number;
  max?: number;
  minItems?: number;
  maxItems?: number;
  oneOf?: readonly string[];
}

/**
 * Checks a value at `path` (from the field's argument: `['input', 'tags', 2]`), adding what is wrong to
 * `out`. Null and absent values are never checked.
 */
type Checker = (value: unknown, path: FieldPath, out: Violation[]) => void;

/** A violation at an argument path (rendered by src/graphql/errors.ts as `input.tags[2]`). */
const at = (path: FieldPath, message: string): Violation => ({ field: path, message, source: 'parameter' });

/**
 * The rules compile to JSON Schema and are checked by ajv with the ajv-formats formats, configured as
 * for the REST validators (src/json-schema.ts): `format: "email"` here is the `format: email` of the
 * OpenAPI documents. Only the messages are ours, reported in the order of RULES. The schemas are
 * built below from the directive's typed arguments, one keyword each, so checking them against
 * the draft's meta-schema (which ajv compiles first, a tenth of a second at every start) finds
 * nothing: `validateSchema: false`.
 */
const ajv = createJsonSchemaValidator({ allErrors: true, validateSchema: false });

/**
 * ajv's validators by their schema's JSON. ajv keeps a compiled schema by the schema object, and
 * every schema build makes new ones: the SDL declares the same few rules on many arguments, and a
 * process that builds the schema again (the mock, the trusted-documents CLI, a test's servers)
 * would compile each anew, most of the cost of a build.
 */
const validators = new Map<string, ReturnType<typeof ajv.compile>>();

function validatorOf(schema: Record<string, unknown>): ReturnType<typeof ajv.compile> {
  const key = JSON.stringify(schema);
  let validate = validators.get(key);
  if (!validate) validators.set(key, (validate = ajv.compile(schema)));
  return validate;
}

type Rule = (rules: ConstraintRules) => [keyword: string, schema: unknown, message: string] | null;

const FORMAT_MESSAGES: Record<string, string> = { email: 'must be a valid e-mail address', uri: 'must be an absolute URI' };

/** Each rule: its JSON Schema keyword and value, and the message of a violation. */
const RULES: Rule[] = [
  (r) => (r.minLength != null ? ['minLength', r.minLength, `must be at least ${r.minLength} characters long`] : null),
  (r) => (r.maxLength != null ? ['maxLength', r.maxLength, `must be at most ${r.maxLength} characters long`] : null),
  (r) => (r.pattern != null ? ['pattern', r.pattern, `must match ${r.pattern}`] : null),
  (r) => {
    if (r.format == null) return null;
    const message = FORMAT_MESSAGES[r.format];
    if (!message) throw new Error(`@constraint: unknown format "${r.format}" (known: ${Object.keys(FORMAT_MESSAGES).join(', ')})`);
    return ['format', r.format, message];
  },
  (r) => (r.min != null ? ['minimum', r.min, `must be at least ${r.min}`] : null),
  (r) => (r.max != null ? ['maximum', r.max, `must be at most ${r.max}`] : null),
  (r) => (r.oneOf != null ? ['enum', r.oneOf, `must be one of: ${r.oneOf.join(', ')}`] : null),
  (r) => (r.minItems != null ? ['minItems', r.minItems, `must have at least ${r.minItems} items`] : null),
  (r) => (r.maxItems != null ? ['maxItems', r.maxItems, `must have at most ${r.maxItems} items`] : null),
];

/**
 * The JSON Schema of `rules` (no `type`: the GraphQL type system has already checked it, and each
 * keyword applies to the values it is about, e.g. `minLength` to strings only) and ajv's validator
 * for it, reporting violations with our messages; null when there are no rules.
 */
function compiledRules(rules: ConstraintRules): Checker | null {
  const compiled = RULES.flatMap((rule) => {
    const found = rule(rules);
    return found ? [found] : [];
  });
  if (!compiled.length) return null;
  const schema = Object.fromEntries(compiled.map(([keyword, value]) => [keyword, value]));
  const validate = validatorOf(schema);
  const order = compiled.map(([keyword]) => keyword);
  const messages = new Map(compiled.map(([keyword, , message]) => [keyword, message]));
  return (value, path, out) => {
    if (value == null || validate(value)) return;
    const failed = new Set((validate.errors ?? []).map((e) => e.keyword));
    for (const keyword of order) if (failed.has(keyword)) out.push(at(path, messages.get(keyword)!));
  };
}

/** The rule set for a single (non-list) value: strings and numbers. */
function scalarChecker(rules: ConstraintRules): Checker | null {
  return compiledRules({ ...rules, minItems: undefined, maxItems: undefined });
}

// PostgreSQL text cannot hold U+0000, so such a value would fail in SQL as an internal error; every
// String and ID argument and input field refuses it up front, whether or not it has a @constraint.
const NUL = '\u0000';
const TEXT_SCALARS = new Set(['String', 'ID']);

function refuseNul(next: Checker | null): Checker {
  return (value, path, out) => {
    if (typeof value === 'string' && value.includes(NUL)) out.push(at(path, 'must not contain the NUL character (U+0000)'));
    next?.(value, path, out);
  };
}

/** Arrays and objects a Json value may nest; JSON.stringify recurses once per level. */
const MAX_JSON_DEPTH = 64;

/** Whether `value` nests arrays and objects deeper than `max`, found without recursion. */
function nestsDeeperThan(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length) {
    const [item, depth] = stack.pop()!;
    if (item === null || typeof item !== 'object') continue;
    if (depth + 1 > max) return true;
    for (const child of Array.isArray(item) ? item : Object.values(item as Record<string, unknown>)) stack.push([child, depth + 1]);
  }
  return false;
}

/** Json values: at most MAX_JSON_DEPTH levels deep, and `maxLength` bounds the length of their JSON text. */
function jsonChecker(rules: ConstraintRules): Checker {
  const max = rules.maxLength;
  return (value, path, out) => {
    if (value === undefined || value === null) return;
    if (nestsDeeperThan(value, MAX_JSON_DEPTH)) {
      out.push(at(path, `must not nest arrays and objects more than ${MAX_JSON_DEPTH} levels deep`));
      return;
    }
    if (max != null && JSON.stringify(value).length > max) out.push(at(path, `must be at most ${max} characters long as JSON text`));
  };
}

function rulesOf(schema: GraphQLSchema, node: GraphQLArgumentConfig | GraphQLInputField): ConstraintRules {
  return (getDirective(schema, node, 'constraint')?.[0] ?? {}) as ConstraintRules;
}

class CheckerCompiler {
  /** Input object checkers by type name; `null` while being compiled guards against recursive inputs. */
  private readonly inputs = new Map<string, Checker | null>();

  constructor(private readonly schema: GraphQLSchema) {}

  /** A checker for a value of `type` carrying `rules`, or null when nothing inside can be violated. */
  forValue(type: GraphQLInputType, rules: ConstraintRules): Checker | null {
    const nullable = getNullableType(type);
    if (isListType(nullable)) {
      const element = this.forValue(nullable.ofType, { ...rules, minItems: undefined, maxItems: undefined });
      const bounds = compiledRules({ minItems: rules.minItems, maxItems: rules.maxItems });
      if (!element && !bounds) return null;
      return (value, path, out) => {
        if (!Array.isArray(value)) return;
        bounds?.(value, path, out);
        value.forEach((item, i) => element?.(item, [...path, i], out));
      };
    }
    if (isInputObjectType(nullable)) return this.forInput(nullable.name);
    if (isScalarType(nullable) && nullable.name === 'Json') return jsonChecker(rules);
    const checker = scalarChecker(rules);
    return isScalarType(nullable) && TEXT_SCALARS.has(nullable.name) ? refuseNul(checker) : checker;
  }

  private forInput(name: string): Checker | null {
    if (this.inputs.has(name)) {
      const known = this.inputs.get(name);
      // Recursive reference: resolve lazily once the type has been compiled.
      return known === null ? (value, path, out) => this.inputs.get(name)?.(value, path, out) : known!;
    }
    this.inputs.set(name, null);
    const type = this.schema.getType(name);
    const fields = isInputObjectType(type) ? Object.values(type.getFields()) : [];
    const checkers = fields.flatMap((field) => {
      const checker = this.forValue(field.type, rulesOf(this.schema, field));
      return checker ? [[field.name, checker] as const] : [];
    });
    const checker: Checker | null = checkers.length
      ? (value, path, out) => {
          if (value == null || typeof value !== 'object') return;
          for (const [field, check] of checkers) check((value as Record<string, unknown>)[field], [...path, field], out);
        }
      : null;
    this.inputs.set(name, checker);
    return checker;
  }
}

function validated(
  check: (args: Record<string, unknown>) => void,
  resolve: GraphQLFieldResolver<unknown, unknown>,
): GraphQLFieldResolver<unknown, unknown> {
  return (source, args, context, info) => {
    check(args as Record<string, unknown>);
    return resolve(source, args, context, info);
  };
}

/** The extension that carries a field's argument check (a string key: graphql-js types extensions by name). */
const CHECK_ARGUMENTS = 'constraintCheck';

/** Whether a field's arguments (coerced) pass its `@constraint` rules, as its resolver would check them. */
export function constraintsAccept(field: { extensions: Readonly<Record<string, unknown>> }, args: Record<string, unknown>): boolean {
  const check = field.extensions[CHECK_ARGUMENTS] as ((args: Record<string, unknown>) => void) | undefined;
  if (!check) return true;
  try {
    check(args);
    return true;
  } catch {
    return false;
  }
}

export function applyConstraintDirective(schema: GraphQLSchema): GraphQLSchema {
  const compiler = new CheckerCompiler(schema);
  return mapSchema(schema, {
    [MapperKind.OBJECT_FIELD]: (fieldConfig) => {
      const argCheckers = Object.entries(fieldConfig.args ?? {}).flatMap(([name, arg]) => {
        const checker = compiler.forValue(arg.type, rulesOf(schema, arg));
        return checker ? [[name, checker] as const] : [];
      });
      if (!argCheckers.length) return fieldConfig;
      const check = (args: Record<string, unknown>) => {
        const violations: Violation[] = [];
        for (const [name, checker] of argCheckers) checker(args[name], [name], violations);
        if (violations.length) throw validationFailed(violations);
      };
      return {
        ...fieldConfig,
        // Kept on the field too, so a planner that reads the field without its resolver applies the same rules.
        extensions: { ...fieldConfig.extensions, [CHECK_ARGUMENTS]: check },
        resolve: validated(check, fieldConfig.resolve ?? defaultFieldResolver),
        ...(fieldConfig.subscribe ? { subscribe: validated(check, fieldConfig.subscribe) } : {}),
      };
    },
  });
}
