/**
 * The cost estimate of a document, compiled once per operationName into a function of the request's
 * variables that gives exactly what operationComplexity gives (graphql-query-complexity's
 * getComplexity with the cost model of limits.ts), without its per-request TypeInfo,
 * ValidationContext and walk of the whole document.
 *
 * The compiler follows QueryComplexity.nodeComplexity (graphql-query-complexity 2.0) step by step:
 * the same operations, the per-possible-type sums and their maximum, the same fragment and type
 * lookups, the same treatment of @skip/@include. What cannot depend on variables is computed here
 * once; only selections whose arguments or @skip/@include hold a variable stay closures, and those
 * read their values as graphql's getArgumentValues/getDirectiveValues would (cost-coercion.ts, which
 * compiles the common shapes and hands the others to graphql), so values coerce as the library sees them.
 * Wherever getComplexity fails (variables that do not coerce, an argument or directive value that
 * does not, an estimate that is not a number) the compiled code throws, and the function answers null.
 */
import {
  getArgumentValues,
  getNamedType,
  GraphQLInterfaceType,
  GraphQLObjectType,
  isAbstractType,
  isCompositeType,
  Kind,
  SchemaMetaFieldDef,
  TypeMetaFieldDef,
  TypeNameMetaFieldDef,
  type ArgumentNode,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLCompositeType,
  type GraphQLDirective,
  type GraphQLField,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionNode,
  type SelectionSetNode,
  type ValueNode,
} from 'graphql';
import { compileArguments, compileVariableCoercion, type Variables } from './cost-coercion.ts';
import { fieldCost, operationComplexity } from './limits.ts';

export type CompiledCost = (variables: Record<string, unknown> | null | undefined) => number | null;

/** A cost known now, or computed from the variables (throwing where getComplexity would fail). */
type Cost = number | ((variables: Variables) => number);

/** Whether a selection is included; throws where the library's getDirectiveValues would. */
type Condition = (variables: Variables) => boolean;

/** What one selection adds to the sums of its selection set. */
interface Contribution {
  /** Indexes of the possible types it adds to, in the selection set's sums. */
  slots: readonly number[];
  cost: Cost;
  /** Absent when the selection is always included. */
  included?: Condition;
}

/** A selection before it is placed in its selection set's sums. */
interface Part {
  types: readonly string[];
  cost: Cost;
}

/** graphql-query-complexity's default maxQueryNodes: getComplexity throws on reaching it. */
const MAX_QUERY_NODES = 10_000;

class TooManyNodes extends Error {}

const thrower =
  (error: unknown): ((variables: Variables) => never) =>
  () => {
    throw error;
  };

function hasVariable(value: ValueNode): boolean {
  if (value.kind === Kind.VARIABLE) return true;
  if (value.kind === Kind.LIST) return value.values.some(hasVariable);
  if (value.kind === Kind.OBJECT) return value.fields.some((field) => hasVariable(field.value));
  return false;
}

const argumentsVary = (args: readonly ArgumentNode[] | undefined): boolean => args?.some((a) => hasVariable(a.value)) ?? false;

/**
 * The library's estimate call (the cost model's `fieldCost` for this field, settled once), NaN
 * included: an estimator answering no number is an error there (0 × Infinity, a size times an
 * overflowing child cost, is one).
 */
function estimator(type: GraphQLCompositeType, field: GraphQLField<unknown, unknown>) {
  const cost = fieldCost(type, field);
  return (args: Record<string, unknown>, childComplexity: number): number => {
    const score = cost(args, childComplexity);
    if (typeof score === 'number' && !isNaN(score)) return score;
    throw new Error(`No complexity could be calculated for field ${type.name}.${field.name}`);
  };
}

/**
 * The maximum over the possible types of the sums, and 0. Every cost is 0 or more and never NaN (the
 * estimator's are, and NaN ones throw), so a type no selection added to, which the library leaves out
 * of its map, changes nothing by counting as 0.
 */
const maxOf = (sums: readonly number[]): number => Math.max(...sums, 0);

/**
 * The selection set's cost. Constant contributions before the first variable one are added now,
 * each type's sum in selection order as the library adds them; the others are added per request in
 * the same order, so that every floating-point sum is the library's.
 */
function sumPerType(contributions: readonly Contribution[], width: number): Cost {
  const base = new Array<number>(width).fill(0);
  let first = 0;
  for (const { slots, cost, included } of contributions) {
    if (included || typeof cost !== 'number') break;
    for (const slot of slots) base[slot]! += cost;
    first++;
  }
  if (first === contributions.length) return maxOf(base);
  const rest = contributions.slice(first);
  return (variables) => {
    const sums = base.slice();
    for (const { slots, cost, included } of rest) {
      if (included && !included(variables)) continue;
      const value = typeof cost === 'number' ? cost : cost(variables);
      for (const slot of slots) sums[slot]! += value;
    }
    return maxOf(sums);
  };
}

class Compiler {
  private nodes = 0;
  private readonly fragments = new Map<string, FragmentDefinitionNode>();
  private readonly include: GraphQLDirective | null | undefined;
  private readonly skip: GraphQLDirective | null | undefined;

  constructor(
    private readonly schema: GraphQLSchema,
    document: DocumentNode,
  ) {
    // The later of two same-named fragments wins, as in ValidationContext.getFragment.
    for (const definition of document.definitions) {
      if (definition.kind === Kind.FRAGMENT_DEFINITION) this.fragments.set(definition.name.value, definition);
    }
    this.include = schema.getDirective('include');
    this.skip = schema.getDirective('skip');
  }

  operation(operation: OperationDefinitionNode): Cost {
    return this.selectionSet(operation.selectionSet, this.schema.getRootType(operation.operation), new Set());
  }

  private count(): void {
    if (++this.nodes >= MAX_QUERY_NODES) throw new TooManyNodes();
  }

  private typeNames(type: GraphQLCompositeType): string[] {
    return isAbstractType(type) ? this.schema.getPossibleTypes(type).map((t) => t.name) : [type.name];
  }

  private selectionSet(
    selectionSet: SelectionSetNode | undefined,
    type: GraphQLCompositeType | null | undefined,
    active: Set<string>,
  ): Cost {
    if (!selectionSet || !type) return 0;
    const slots = new Map<string, number>();
    const slotOf = (name: string): number => slots.get(name) ?? slots.set(name, slots.size).size - 1;
    const contributions: Contribution[] = [];
    for (const selection of selectionSet.selections) {
      // Counted whether included or not, as the library counts it.
      this.count();
      const contribution = this.contribution(selection, type, active);
      if (contribution) contributions.push({ ...contribution, slots: contribution.types.map(slotOf) });
    }
    return sumPerType(contributions, slots.size);
  }

  private contribution(
    selection: SelectionNode,
    type: GraphQLCompositeType,
    active: Set<string>,
  ): (Part & { included?: Condition }) | null {
    const included = this.condition(selection);
    if (included === false) return null;
    const part = this.part(selection, type, active);
    if (included === true) return part;
    // A varying condition is evaluated even when the selection adds nothing: it can fail.
    return { ...(part ?? { types: [], cost: 0 }), included };
  }

  /** true or false when known now; a Condition when a variable (or a failing value) decides. */
  private condition(node: SelectionNode): boolean | Condition {
    const directives = node.directives?.filter((d) => d.name.value === 'include' || d.name.value === 'skip') ?? [];
    if (!directives.length) return true;
    const condition = this.conditionOf(node);
    if (directives.some((d) => argumentsVary(d.arguments))) return condition;
    try {
      return condition(undefined);
    } catch (error) {
      return thrower(error);
    }
  }

  /** The library's loop: each @include/@skip reads the node's first directive of that name. */
  private conditionOf(node: SelectionNode): Condition {
    // getDirectiveValues reads the node's first directive of the name, whichever the loop is at.
    const argumentsOf = (directive: GraphQLDirective | null | undefined, name: string) => {
      const first = node.directives?.find((d) => d.name.value === name);
      if (!directive) return thrower(new Error(`The schema has no @${name} directive`));
      return first ? compileArguments(directive, first) : () => undefined;
    };
    const includeArguments = argumentsOf(this.include, 'include');
    const skipArguments = argumentsOf(this.skip, 'skip');
    const valueOf = (directive: 'include' | 'skip', variables: Variables): unknown =>
      (directive === 'include' ? includeArguments : skipArguments)(variables)?.['if'];
    return (variables) => {
      let include = true;
      let skip = false;
      for (const directive of node.directives ?? []) {
        if (directive.name.value === 'include') {
          const value = valueOf('include', variables);
          if (typeof value === 'boolean') include = value;
        } else if (directive.name.value === 'skip') {
          const value = valueOf('skip', variables);
          if (typeof value === 'boolean') skip = value;
        }
      }
      return include && !skip;
    };
  }

  /** The selection's types and cost once included; null when the library adds nothing for it. */
  private part(selection: SelectionNode, type: GraphQLCompositeType, active: Set<string>): Part | null {
    if (selection.kind === Kind.FIELD) return this.field(selection, type, active);
    if (selection.kind === Kind.FRAGMENT_SPREAD) return this.spread(selection.name.value, active);
    const condition = selection.typeCondition ? this.schema.getType(selection.typeCondition.name.value) : type;
    if (!isCompositeType(condition)) return null;
    return { types: this.typeNames(condition), cost: this.selectionSet(selection.selectionSet, condition, active) };
  }

  private spread(name: string, active: Set<string>): Part | null {
    const fragment = this.fragments.get(name);
    if (!fragment || active.has(name)) return null;
    const condition = this.schema.getType(fragment.typeCondition.name.value);
    if (!isCompositeType(condition)) return null;
    active.add(name);
    const cost = this.selectionSet(fragment.selectionSet, condition, active);
    active.delete(name);
    return { types: this.typeNames(condition), cost };
  }

  private field(node: FieldNode, type: GraphQLCompositeType, active: Set<string>): Part | null {
    const field = this.fieldDefinition(node.name.value, type);
    if (!field) return null;
    const types = this.typeNames(type);
    const varying = argumentsVary(node.arguments);
    let args: Record<string, unknown> = {};
    if (!varying) {
      try {
        args = getArgumentValues(field, node, undefined);
      } catch (error) {
        return { types, cost: thrower(error) };
      }
    }
    const fieldType = getNamedType(field.type);
    const child = isCompositeType(fieldType) ? this.selectionSet(node.selectionSet, fieldType, active) : 0;
    const estimate = estimator(type, field);
    if (!varying && typeof child === 'number') {
      try {
        return { types, cost: estimate(args, child) };
      } catch (error) {
        return { types, cost: thrower(error) };
      }
    }
    const argumentsOf = varying ? compileArguments(field, node) : () => args;
    return { types, cost: (variables) => estimate(argumentsOf(variables), typeof child === 'number' ? child : child(variables)) };
  }

  private fieldDefinition(name: string, type: GraphQLCompositeType): GraphQLField<unknown, unknown> | undefined {
    if (name === SchemaMetaFieldDef.name) return SchemaMetaFieldDef;
    if (name === TypeMetaFieldDef.name) return TypeMetaFieldDef;
    if (name === TypeNameMetaFieldDef.name) return TypeNameMetaFieldDef;
    // A union's fields are a plain object in the library, so a name like `constructor` finds an
    // Object.prototype member there, whose arguments then fail to coerce: the same happens here.
    const fields: Record<string, GraphQLField<unknown, unknown>> = type instanceof GraphQLObjectType || type instanceof GraphQLInterfaceType
      ? type.getFields()
      : {};
    return fields[name];
  }
}

interface CompiledOperation {
  /** The operation's coerced variables as the library passes them on, or null when they do not coerce; absent without variables. */
  coerce?: (inputs: Record<string, unknown>) => Variables | null;
  cost: Cost;
}

function evaluate(operations: readonly CompiledOperation[]): CompiledCost {
  if (operations.every((o) => !o.coerce && typeof o.cost === 'number')) {
    const total = operations.reduce((sum, o) => sum + (o.cost as number), 0);
    return () => total;
  }
  return (variables) => {
    const inputs = variables ?? {};
    let total = 0;
    try {
      for (const { coerce, cost } of operations) {
        const coerced = coerce ? coerce(inputs) : undefined;
        if (coerced === null) return null;
        total += typeof cost === 'number' ? cost : cost(coerced);
      }
    } catch {
      return null;
    }
    return total;
  };
}

/**
 * The cost of `document` (validated or not) for `operationName`, as operationComplexity computes it,
 * as a function of the request's variables.
 *
 * getComplexity gives up (null) once it has looked at 10,000 selections, counting skipped ones, and
 * how many it looks at depends on the variables. Compiling counts every selection it could look at;
 * a document that can reach the cap is not compiled, and its cost is left to operationComplexity on
 * each request: such documents are rare, and exactness matters more than their speed.
 */
export function compileCost(schema: GraphQLSchema, document: DocumentNode, operationName: string | null | undefined): CompiledCost {
  // operationComplexity gives getComplexity no operationName when it is empty.
  const name = operationName || undefined;
  const operations = document.definitions.filter((d) => d.kind === Kind.OPERATION_DEFINITION);
  // Given a name, getComplexity reads every operation's name and throws on an anonymous one.
  if (name !== undefined && operations.some((o) => !o.name)) return () => null;
  const selected = operations.filter((o) => name === undefined || o.name?.value === name);
  const compiler = new Compiler(schema, document);
  try {
    return evaluate(
      selected.map((o) => ({
        ...(o.variableDefinitions?.length ? { coerce: compileVariableCoercion(schema, o.variableDefinitions) } : {}),
        cost: compiler.operation(o),
      })),
    );
  } catch (error) {
    if (!(error instanceof TooManyNodes)) throw error;
    return (variables) => operationComplexity(schema, document, variables, operationName);
  }
}
