/**
 * The GraphQL mapping of service errors, per the interface document's errors table. Applied once to
 * every execution result (HTTP and WebSocket): anything not a known AppError or a GraphQL
 * validation/syntax error becomes an opaque INTERNAL_ERROR.
 */
import { GraphQLError } from 'graphql';
import { AppError, RateLimited, type Violation } from '../errors.ts';

export type ErrorType = 'NOT_FOUND' | 'FORBIDDEN' | 'UNAUTHORIZED' | 'BAD_REQUEST' | 'TOO_MANY_REQUESTS' | 'INTERNAL_ERROR';

const ERROR_TYPE: Partial<Record<AppError['code'], ErrorType>> = {
  NOT_FOUND: 'NOT_FOUND',
  FORBIDDEN: 'FORBIDDEN',
  UNAUTHENTICATED: 'UNAUTHORIZED',
  VALIDATION: 'BAD_REQUEST',
  CONFLICT: 'BAD_REQUEST',
  PAYLOAD_TOO_LARGE: 'BAD_REQUEST',
  UNSUPPORTED_MEDIA_TYPE: 'BAD_REQUEST',
  NOT_ACCEPTABLE: 'BAD_REQUEST',
  TOO_MANY_REQUESTS: 'TOO_MANY_REQUESTS',
};

/** The errorType of a refusal known only by its HTTP status (one made before GraphQL saw the request). */
export function errorTypeOf(status: number): ErrorType {
  if (status === 401) return 'UNAUTHORIZED';
  if (status === 403) return 'FORBIDDEN';
  if (status === 404) return 'NOT_FOUND';
  if (status === 429) return 'TOO_MANY_REQUESTS';
  return status >= 500 ? 'INTERNAL_ERROR' : 'BAD_REQUEST';
}

/**
 * Where a violation is, as GraphQL names it (the interface document: `field` is the property path):
 * a property of the input is under the `input` argument every mutation takes its data in
 * (`input.username`, `input.tags[2]`), a parameter or identifier is the argument itself (`userId`).
 */
export function graphqlField(violation: Violation): string {
  const path = (violation.source ?? 'input') === 'input' ? ['input', ...violation.field] : violation.field;
  return path.reduce<string>((out, s, i) => (typeof s === 'number' ? `${out}[${s}]` : i === 0 ? s : `${out}.${s}`), '');
}

/**
 * A new error at the same place as `error`. graphql-js errors carry their AST nodes; graphql-jit's
 * carry only the locations it computed when compiling, so those are copied when there are no nodes.
 */
function relocated(error: GraphQLError, message: string, extensions: Record<string, unknown>): GraphQLError {
  const mapped = new GraphQLError(message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    extensions,
  });
  if (mapped.locations === undefined && error.locations?.length)
    (mapped as { locations: GraphQLError['locations'] }).locations = error.locations;
  return mapped;
}

export function mapGraphQLError(error: GraphQLError, log?: (err: unknown) => void): GraphQLError {
  const original = error.originalError;
  if (original instanceof AppError) {
    const errorType = ERROR_TYPE[original.code] ?? 'BAD_REQUEST';
    const extensions: Record<string, unknown> = { errorType };
    if (original.reason) extensions.code = original.reason;
    if (original.violations.length)
      extensions.violations = original.violations.map((v) => ({ field: graphqlField(v), message: v.message }));
    // What REST says in Retry-After: whole seconds until the budget refills.
    if (original instanceof RateLimited) extensions.retryAfter = original.retryAfterS;
    const message = errorType === 'FORBIDDEN' ? 'Access denied' : original.message;
    return relocated(error, message, extensions);
  }
  if (error.extensions?.errorType) return error;
  if (original instanceof GraphQLError && original.extensions?.errorType) return relocated(error, original.message, original.extensions);
  if (!error.path) {
    // No path: the request itself (syntax, validation, variables that do not coerce). Its message is
    // graphql-js's own description of what is wrong with the document, safe and useful to show.
    return relocated(error, error.message, { errorType: 'BAD_REQUEST', code: 'GRAPHQL_VALIDATION_FAILED' });
  }
  log?.(original ?? error);
  return relocated(error, 'Internal server error', { errorType: 'INTERNAL_ERROR' });
}
