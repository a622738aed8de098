/**
 * The default GraphQL limits, apart from limits.ts so that configuration (config.ts) reads them
 * without loading graphql, and the SDK's check-operations CLI holds operations to the same numbers.
 */

/** GRAPHQL_MAX_DEPTH when unset: deepest field nesting (root fields are depth 1). */
export const DEFAULT_MAX_DEPTH = 10;
/** GRAPHQL_MAX_COMPLEXITY when unset: highest estimated cost (the model in limits.ts). */
export const DEFAULT_MAX_COMPLEXITY = 200;
