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
import { validationFailed, type Violation } from '../errors.ts';

export interface ConstraintRules {
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

/** Checks a value at `path`, adding what is wrong to `out`. Null and absent values are never checked. */
type Checker = (value: unknown, path: string, out: Violation[]) => void;

// Deliberately simple: one @, no spaces, a dot in the domain. Deliverability is not our business.
const EMAIL = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;

function isAbsoluteUri(value: string): boolean {
  if (!/^[A-Za-z][A-Za-z0-9+.-]*:/.test(value)) return false;
  try {
    new URL(value);
    return true;
  } catch {
    return false;
  }
}

/** The rule set for a single (non-list) value: strings and numbers. */
export function scalarChecker(rules: ConstraintRules): Checker | null {
  const checks: ((value: unknown) => string | null)[] = [];
  const length = (v: string) => [...v].length;
  if (rules.minLength != null) {
    const n = rules.minLength;
    checks.push((v) => (typeof v === 'string' && length(v) < n ? `must be at least ${n} characters long` : null));
  }
  if (rules.maxLength != null) {
    const n = rules.maxLength;
    checks.push((v) => (typeof v === 'string' && length(v) > n ? `must be at most ${n} characters long` : null));
  }
  if (rules.pattern != null) {
    const re = new RegExp(rules.pattern, 'u');
    checks.push((v) => (typeof v === 'string' && !re.test(v) ? `must match ${rules.pattern}` : null));
  }
  if (rules.format === 'email') checks.push((v) => (typeof v === 'string' && !EMAIL.test(v) ? 'must be a valid e-mail address' : null));
  if (rules.format === 'uri') checks.push((v) => (typeof v === 'string' && !isAbsoluteUri(v) ? 'must be an absolute URI' : null));
  if (rules.min != null) {
    const n = rules.min;
    checks.push((v) => (typeof v === 'number' && v < n ? `must be at least ${n}` : null));
  }
  if (rules.max != null) {
    const n = rules.max;
    checks.push((v) => (typeof v === 'number' && v > n ? `must be at most ${n}` : null));
  }
  if (rules.oneOf != null) {
    const allowed = new Set(rules.oneOf);
    const message = `must be one of: ${rules.oneOf.join(', ')}`;
    checks.push((v) => (typeof v === 'string' && !allowed.has(v) ? message : null));
  }
  if (!checks.length) return null;
  return (value, path, out) => {
    if (value == null) return;
    for (const check of checks) {
      const message = check(value);
      if (message) out.push({ field: path, message });
    }
  };
}

// PostgreSQL text cannot hold U+0000, so such a value would fail in SQL as an internal error; every
// String and ID argument and input field refuses it up front, whether or not it has a @constraint.
const NUL = '\u0000';
const TEXT_SCALARS = new Set(['String', 'ID']);

function refuseNul(next: Checker | null): Checker {
  return (value, path, out) => {
    if (typeof value === 'string' && value.includes(NUL)) out.push({ field: path, message: 'must not contain the NUL character (U+0000)' });
    next?.(value, path, out);
  };
}

/** Json values: `maxLength` bounds the length of their JSON text. */
function jsonChecker(rules: ConstraintRules): Checker | null {
  const max = rules.maxLength;
  if (max == null) return null;
  return (value, path, out) => {
    if (value === undefined || value === null) return;
    const length = JSON.stringify(value).length;
    if (length > max) out.push({ field: path, message: `must be at most ${max} characters long as JSON text` });
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
      const { minItems, maxItems } = rules;
      if (!element && minItems == null && maxItems == null) return null;
      return (value, path, out) => {
        if (!Array.isArray(value)) return;
        if (minItems != null && value.length < minItems) out.push({ field: path, message: `must have at least ${minItems} items` });
        if (maxItems != null && value.length > maxItems) out.push({ field: path, message: `must have at most ${maxItems} items` });
        value.forEach((item, i) => element?.(item, `${path}[${i}]`, out));
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
          for (const [field, check] of checkers) check((value as Record<string, unknown>)[field], `${path}.${field}`, out);
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
        for (const [name, checker] of argCheckers) checker(args[name], name, violations);
        if (violations.length) throw validationFailed(violations);
      };
      return {
        ...fieldConfig,
        resolve: validated(check, fieldConfig.resolve ?? defaultFieldResolver),
        ...(fieldConfig.subscribe ? { subscribe: validated(check, fieldConfig.subscribe) } : {}),
      };
    },
  });
}
