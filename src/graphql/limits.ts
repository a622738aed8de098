/**
 * Request limits, all checked before execution so an expensive operation never starts.
 *
 * Cost model (complexity), the one documented in docs/graphql.md ("Limits"), calibrated on measured
 * work (scripts/bench/graphql-cost.ts): what multiplies is fetches per parent row, not columns.
 * - a scalar or enum field costs 0: a column of a row its parent already fetched;
 * - any other field costs 1 (its fetch) plus n × its selection's cost, n being the most rows it can
 *   return: its `size` or `limit` argument (its default when omitted or null: the paged connections,
 *   `searchUsers`, and the bounded lists `followers`, `following` and `replies`), UNPAGED_LIST_FACTOR
 *   for any other list (`tags`, at most 10 a post; `allUsers`), 1 for a single object;
 * - `content` inside a connection is not multiplied again (the page size already was): it costs 1,
 *   each row of the page, plus its selection. `users(size: 20) { content { id } }` costs 1 + 20 × 1;
 * - introspection (`__schema`, `__type`, `__typename`) costs nothing; it is bounded instead by the
 *   introspection rule below, the alias cap and the length cap, which also bound a fan-out of free
 *   scalars.
 * Depth counts nested field levels, root fields being depth 1 (`{ user { id } }` has depth 2);
 * introspection subtrees are exempt from depth and covered by the introspection rule.
 */
import {
  GraphQLError,
  getNamedType,
  getNullableType,
  isIntrospectionType,
  isLeafType,
  isListType,
  Kind,
  type ASTVisitor,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLArgument,
  type GraphQLCompositeType,
  type GraphQLField,
  type GraphQLSchema,
  type SelectionSetNode,
  type ValidationContext,
  type ValidationRule,
} from 'graphql';
import { getComplexity, type ComplexityEstimator } from 'graphql-query-complexity';

export interface GraphQLLimits {
  maxDepth: number;
  maxComplexity: number;
  maxAliases: number;
  /** Characters of the query text. */
  maxQueryLength: number;
}

/** The schema's bound on `Post.tags` (CreatePostInput.tags, maxItems 10); assumed for `allUsers`. */
const UNPAGED_LIST_FACTOR = 10;
const DEFAULT_MAX_ALIASES = 20;
const DEFAULT_MAX_QUERY_LENGTH = 16_384;

/**
 * The limits every GraphQL operation is held to, from configuration (or from the check-operations
 * CLI's flags: hence the two settings only, not the whole Config).
 */
export function graphqlLimits(config: { graphqlMaxDepth: number; graphqlMaxComplexity: number }): GraphQLLimits {
  return {
    maxDepth: config.graphqlMaxDepth,
    maxComplexity: config.graphqlMaxComplexity,
    maxAliases: DEFAULT_MAX_ALIASES,
    maxQueryLength: DEFAULT_MAX_QUERY_LENGTH,
  };
}

/** Introspection fields that list types or fields: selecting one inside another is the classic blow-up. */
const INTROSPECTION_LISTS = new Set(['types', 'fields', 'inputFields', 'interfaces', 'possibleTypes', 'enumValues', 'args']);

export function limitError(code: string, message: string): GraphQLError {
  return new GraphQLError(message, { extensions: { errorType: 'BAD_REQUEST', code } });
}

function isIntrospectionRoot(name: string): boolean {
  return name === '__schema' || name === '__type';
}

/** Walks selections through fragments; `visitField` returns the value carried into the field's children. */
function walk<T>(
  selectionSet: SelectionSetNode,
  fragments: (name: string) => FragmentDefinitionNode | undefined | null,
  state: T,
  visitField: (name: string, state: T) => T | null,
  seen: ReadonlySet<string> = new Set(),
): void {
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) {
      const next = visitField(selection.name.value, state);
      if (next !== null && selection.selectionSet) walk(selection.selectionSet, fragments, next, visitField, seen);
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      walk(selection.selectionSet, fragments, state, visitField, seen);
    } else {
      const name = selection.name.value;
      const fragment = fragments(name);
      // Fragment cycles are reported by the standard NoFragmentCycles rule; just do not loop here.
      if (fragment && !seen.has(name)) walk(fragment.selectionSet, fragments, state, visitField, new Set([...seen, name]));
    }
  }
}

export function depthLimitRule(maxDepth: number): ValidationRule {
  return (context: ValidationContext): ASTVisitor => ({
    OperationDefinition(operation) {
      let deepest = 0;
      walk(
        operation.selectionSet,
        (n) => context.getFragment(n),
        0,
        (name, depth) => {
          if (isIntrospectionRoot(name)) return null;
          deepest = Math.max(deepest, depth + 1);
          // Stop descending once over the limit: the answer is already "too deep".
          return depth + 1 > maxDepth ? null : depth + 1;
        },
      );
      if (deepest > maxDepth) {
        context.reportError(limitError('QUERY_TOO_DEEP', `Query depth ${deepest} exceeds the maximum depth of ${maxDepth}`));
      }
    },
  });
}

export function introspectionRule(): ValidationRule {
  return (context: ValidationContext): ASTVisitor => ({
    OperationDefinition(operation) {
      // Widened on purpose: the walk's callback assigns it, which control-flow narrowing cannot see.
      let offending = null as string | null;
      walk<{ inside: boolean; lists: ReadonlySet<string> }>(
        operation.selectionSet,
        (n) => context.getFragment(n),
        { inside: false, lists: new Set() },
        (name, state) => {
          if (offending) return null;
          if (!state.inside) return isIntrospectionRoot(name) ? { inside: true, lists: new Set() } : state;
          if (!INTROSPECTION_LISTS.has(name)) return state;
          if (state.lists.has(name)) {
            offending = name;
            return null;
          }
          return { inside: true, lists: new Set([...state.lists, name]) };
        },
      );
      if (offending) {
        context.reportError(
          limitError('QUERY_TOO_DEEP', `Introspection may select "${offending}" only once along a path (no recursive introspection)`),
        );
      }
    },
  });
}

export function aliasLimitRule(maxAliases: number): ValidationRule {
  return (context: ValidationContext): ASTVisitor => {
    let aliases = 0;
    return {
      Field(node) {
        if (node.alias) aliases++;
      },
      Document: {
        leave() {
          if (aliases > maxAliases) {
            context.reportError(limitError('TOO_MANY_ALIASES', `Query uses ${aliases} aliases; at most ${maxAliases} are allowed`));
          }
        },
      },
    };
  };
}

/**
 * The argument that bounds how many rows a field returns (`size` or `limit`), if it has one: the
 * estimator multiplies by it, and check-operations names the variables that set it.
 */
export function sizeArgument(field: GraphQLField<unknown, unknown>): GraphQLArgument | undefined {
  return field.args.find((a) => a.name === 'size' || a.name === 'limit');
}

/**
 * The cost model above for one field of one type, with what does not depend on the request
 * (introspection, leaf, the size argument, a list) settled once: the compiled cost (cost.ts) keeps
 * one per field of the document, so a request only reads the size and multiplies.
 */
export function fieldCost(
  type: GraphQLCompositeType,
  field: GraphQLField<unknown, unknown>,
): (args: Record<string, unknown>, childComplexity: number) => number {
  if (field.name.startsWith('__') || isIntrospectionType(type)) return () => 0;
  // A scalar or enum is a column of a row its parent field already fetched (and charged for):
  // measured, a response object costs the server about 2 µs, a fetch per parent far more.
  if (isLeafType(getNamedType(field.type))) return () => 0;
  const sized = sizeArgument(field);
  if (sized) {
    const { name, defaultValue } = sized;
    return (args, childComplexity) => {
      const value: unknown = args[name] ?? defaultValue;
      return 1 + (typeof value === 'number' ? Math.max(value, 0) : 1) * childComplexity;
    };
  }
  if (isListType(getNullableType(field.type)) && !type.name.endsWith('Connection')) {
    return (_args, childComplexity) => 1 + UNPAGED_LIST_FACTOR * childComplexity;
  }
  return (_args, childComplexity) => 1 + childComplexity;
}

/** The estimator of the cost model above, for operationComplexity (graphql-query-complexity). */
const costEstimator: ComplexityEstimator = ({ type, field, args, childComplexity }) => fieldCost(type, field)(args, childComplexity);

/**
 * The estimated cost of the operation, or null when it cannot be estimated because its variables do
 * not coerce: execution then refuses it with the precise variable error, before any resolver runs.
 * Requests use compileCost (cost.ts), which gives the same answer without walking the document.
 */
export function operationComplexity(
  schema: GraphQLSchema,
  document: DocumentNode,
  variables: Record<string, unknown> | null | undefined,
  operationName: string | null | undefined,
): number | null {
  try {
    return getComplexity({
      schema,
      query: document,
      variables: variables ?? {},
      ...(operationName ? { operationName } : {}),
      estimators: [costEstimator],
    });
  } catch {
    return null;
  }
}
