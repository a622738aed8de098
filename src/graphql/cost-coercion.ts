/**
 * The two coercions the compiled cost (cost.ts) runs on every request, compiled once per operation
 * for the shapes operations almost always have, and giving exactly what graphql-js gives:
 *
 * - the variables (graphql's getVariableValues), when every variable is of a scalar or enum type,
 *   nullable or not: each value goes through the type's parseValue as coerceInputValue does;
 * - a field's or directive's arguments (getArgumentValues), when each argument is either a bare
 *   `$variable` or holds no variable: constants are coerced now, variables read per request as
 *   valueFromAST reads them.
 *
 * Any other shape (a list or input object variable, a variable inside a list or object argument)
 * is left to graphql's own function. The library's steps are followed line by line (graphql 16,
 * execution/values.js and utilities/valueFromAST.js); test/graphql/cost.test.ts compares the costs
 * with graphql-query-complexity's on drawn documents and variables, nulls, missing and wrong values.
 * Profiled, the library's two took about 4.5 of the 5 µs a cached feed operation's cost took.
 */
import {
  getArgumentValues,
  getVariableValues,
  isLeafType,
  isNonNullType,
  Kind,
  typeFromAST,
  valueFromAST,
  type ArgumentNode,
  type DirectiveNode,
  type FieldNode,
  type GraphQLArgument,
  type GraphQLDirective,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLLeafType,
  type GraphQLSchema,
  type VariableDefinitionNode,
} from 'graphql';

/** Coerced variables as graphql hands them on: undefined when there are none. */
export type Variables = Record<string, unknown> | undefined;

/** Thrown where the library would report an error; the cost then answers null (cost.ts). */
class NotCoerced extends Error {}
const fail = (): never => {
  throw new NotCoerced();
};

const hasOwn = (object: object, key: string): boolean => Object.prototype.hasOwnProperty.call(object, key);

interface LeafVariable {
  name: string;
  type: GraphQLLeafType;
  nonNull: boolean;
  /** Present when the definition has a default: its value as valueFromAST gives it. */
  default?: { value: unknown };
}

/**
 * The operation's variables coerced as getVariableValues coerces them, or null where it reports
 * errors.
 */
export function compileVariableCoercion(
  schema: GraphQLSchema,
  definitions: readonly VariableDefinitionNode[],
): (inputs: Record<string, unknown>) => Variables | null {
  const leaves: LeafVariable[] = [];
  for (const definition of definitions) {
    const type = typeFromAST(schema, definition.type);
    const named = type && isNonNullType(type) ? type.ofType : type;
    if (!type || !isLeafType(named)) return (inputs) => libraryCoercion(schema, definitions, inputs);
    const leaf: LeafVariable = { name: definition.variable.name.value, type: named, nonNull: isNonNullType(type) };
    if (definition.defaultValue) leaf.default = { value: valueFromAST(definition.defaultValue, type as GraphQLInputType) };
    leaves.push(leaf);
  }
  return (inputs) => {
    const coerced: Record<string, unknown> = {};
    for (const { name, type, nonNull, default: fallback } of leaves) {
      if (!hasOwn(inputs, name)) {
        if (fallback) coerced[name] = fallback.value;
        else if (nonNull) return null;
        continue;
      }
      const value = inputs[name];
      // coerceInputValue: null or undefined is an error for a non-null type, null otherwise.
      if (value == null) {
        if (nonNull) return null;
        coerced[name] = null;
        continue;
      }
      let parsed: unknown;
      try {
        parsed = type.parseValue(value);
      } catch {
        return null;
      }
      if (parsed === undefined) return null;
      coerced[name] = parsed;
    }
    return Object.keys(coerced).length ? coerced : undefined;
  };
}

function libraryCoercion(
  schema: GraphQLSchema,
  definitions: readonly VariableDefinitionNode[],
  inputs: Record<string, unknown>,
): Variables | null {
  const result = getVariableValues(schema, definitions, inputs);
  if (result.errors) return null;
  return Object.keys(result.coerced).length ? result.coerced : undefined;
}

function holdsVariable(node: ArgumentNode['value']): boolean {
  if (node.kind === Kind.VARIABLE) return true;
  if (node.kind === Kind.LIST) return node.values.some(holdsVariable);
  if (node.kind === Kind.OBJECT) return node.fields.some((field) => holdsVariable(field.value));
  return false;
}

/** How one argument gets its value: settled now (a value, nothing, or an error), or read from a variable. */
type ArgumentStep =
  | { name: string; kind: 'value'; value: unknown }
  | { name: string; kind: 'skip' | 'fail' }
  | { name: string; kind: 'variable'; variable: string; nonNull: boolean; default: unknown };

/** getArgumentValues's treatment of one argument definition, as far as it is known without variables. */
function stepOf(definition: GraphQLArgument, node: ArgumentNode | undefined): ArgumentStep {
  const { name, type, defaultValue } = definition;
  const nonNull = isNonNullType(type);
  if (!node) {
    if (defaultValue !== undefined) return { name, kind: 'value', value: defaultValue };
    return { name, kind: nonNull ? 'fail' : 'skip' };
  }
  if (node.value.kind === Kind.VARIABLE) return { name, kind: 'variable', variable: node.value.name.value, nonNull, default: defaultValue };
  if (node.value.kind === Kind.NULL && nonNull) return { name, kind: 'fail' };
  const value = valueFromAST(node.value, type);
  return value === undefined ? { name, kind: 'fail' } : { name, kind: 'value', value };
}

/**
 * The arguments of a field or directive (`definition`) as `node` gives them, as a function of the
 * coerced variables, giving what getArgumentValues gives and throwing where it throws.
 */
export function compileArguments(
  definition: GraphQLField<unknown, unknown> | GraphQLDirective,
  node: FieldNode | DirectiveNode,
): (variables: Variables) => Record<string, unknown> {
  const byName = new Map<string, ArgumentNode>();
  // The last of two same-named arguments wins, as in the library's keyMap.
  for (const argument of node.arguments ?? []) byName.set(argument.name.value, argument);
  if ([...byName.values()].some((argument) => argument.value.kind !== Kind.VARIABLE && holdsVariable(argument.value))) {
    return (variables) => getArgumentValues(definition, node, variables);
  }
  const steps = definition.args.map((argument) => stepOf(argument, byName.get(argument.name)));
  return (variables) => {
    const values: Record<string, unknown> = {};
    for (const step of steps) {
      if (step.kind === 'value') values[step.name] = step.value;
      else if (step.kind === 'fail') fail();
      else if (step.kind === 'variable') {
        if (variables == null || !hasOwn(variables, step.variable)) {
          if (step.default !== undefined) values[step.name] = step.default;
          else if (step.nonNull) fail();
          continue;
        }
        // valueFromAST of a variable: undefined is no value, null none for a non-null type.
        const value = variables[step.variable];
        if (value === undefined || (value === null && step.nonNull)) fail();
        values[step.name] = value;
      }
    }
    return values;
  };
}
