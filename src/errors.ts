/**
 * Errors a service may throw. They carry no HTTP or GraphQL detail: each transport maps them once
 * (src/http/problem.ts for REST, src/graphql/errors.ts for GraphQL).
 */

/** A property path in domain terms: `['price']`, `['items', 2, 'productId']`; `[]` is the whole value. */
export type FieldPath = readonly (string | number)[];

/**
 * What a violation's path starts from, in terms of the operation rather than of a transport:
 * - `input`: the data the operation takes (a REST request body, the GraphQL `input` argument);
 * - `parameter`: a named parameter that selects or shapes the result (a REST query parameter, a
 *   GraphQL field argument);
 * - `identifier`: the identifier of the resource addressed (a REST path parameter, a GraphQL argument).
 */
export type ViolationSource = 'input' | 'parameter' | 'identifier';

export interface Violation {
  /** The offending value's path from its source, e.g. `['price']`, `['minPrice']`, `['tags', 1]`. */
  field: FieldPath;
  message: string;
  /** Where `field` starts; `input` when absent. */
  source?: ViolationSource;
  /**
   * Which kind of rule was broken, when the validator knows: `missing` (a required property is
   * absent) or `value` (the value has the right type but is not one the property allows: too short
   * or long, off its pattern or range). Absent for the shape of the data (a wrong type, a property
   * that is not allowed), which protocols such as SCIM answer differently (RFC 7644 §3.12).
   */
  rule?: 'missing' | 'value';
}

export type AppErrorCode =
  | 'NOT_FOUND'
  | 'VALIDATION'
  | 'CONFLICT'
  | 'UNAUTHENTICATED'
  | 'FORBIDDEN'
  | 'PAYLOAD_TOO_LARGE'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'NOT_ACCEPTABLE'
  | 'PRECONDITION_FAILED'
  | 'TOO_MANY_REQUESTS'
  | 'INSUFFICIENT_STORAGE';

export class AppError extends Error {
  constructor(
    readonly code: AppErrorCode,
    message: string,
    /** A machine-readable sub-code, e.g. USER_NOT_FOUND or DUPLICATE_SKU. */
    readonly reason?: string,
    readonly violations: Violation[] = [],
  ) {
    super(message);
    this.name = 'AppError';
  }
}

export const notFound = (message: string, reason?: string) => new AppError('NOT_FOUND', message, reason);
export const conflict = (message: string, reason?: string) => new AppError('CONFLICT', message, reason);
export const forbidden = (message = 'Access denied') => new AppError('FORBIDDEN', message);
export const unauthenticated = (message = 'Authentication required') => new AppError('UNAUTHENTICATED', message);
export const validationFailed = (violations: Violation[], message = 'Validation failed') =>
  new AppError('VALIDATION', message, 'VALIDATION_ERROR', violations);

/**
 * A conditional write named versions the resource no longer has: nothing was written. Carries the
 * current version so the transport can hand the client what it needs to re-read and retry.
 */
export class VersionMismatch extends AppError {
  constructor(
    readonly currentVersion: number,
    what: string,
  ) {
    super('PRECONDITION_FAILED', `${what} is at version ${currentVersion}; the request was based on another version`, 'VERSION_MISMATCH');
  }
}

/** A budget of attempts is spent (sign-in, registration): try again after `retryAfterS` seconds. */
export class RateLimited extends AppError {
  constructor(
    readonly retryAfterS: number,
    message: string,
  ) {
    super('TOO_MANY_REQUESTS', message, 'RATE_LIMITED');
  }
}

/** PostgreSQL unique_violation, raised by both drivers with the same SQLSTATE. */
export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  const e = error as { code?: string; constraint?: string } | null;
  return e?.code === '23505' && (constraint === undefined || e.constraint === constraint);
}

/** PostgreSQL check_violation (a CHECK constraint refused the row), same SQLSTATE on both drivers. */
export function isCheckViolation(error: unknown, constraint?: string): boolean {
  const e = error as { code?: string; constraint?: string } | null;
  return e?.code === '23514' && (constraint === undefined || e.constraint === constraint);
}

/** PostgreSQL foreign_key_violation (a row names a row that does not exist), same SQLSTATE on both drivers. */
export function isForeignKeyViolation(error: unknown, constraint?: string): boolean {
  const e = error as { code?: string; constraint?: string } | null;
  return e?.code === '23503' && (constraint === undefined || e.constraint === constraint);
}

/**
 * Whether `error` says the database cannot be reached right now (stopped, restarting, refusing
 * connections, a connection ended under a query), rather than that the request or the code is wrong:
 * the client may retry, so transports answer 503, not 500. SQLSTATE class 08 (connection exception),
 * 57P01–57P03 (shutdown, crash, cannot connect now), and the socket errors node-postgres passes on.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && (/^08[0-9A-Z]{3}$/.test(code) || /^57P0[123]$/.test(code) || UNREACHABLE.has(code))) return true;
  return typeof message === 'string' && /^(Connection terminated|Client has encountered a connection error)/.test(message);
}

const UNREACHABLE = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH']);

/** Storing this would leave the database's disk without the room it needs to keep working. */
export const insufficientStorage = (bytes: number) =>
  new AppError('INSUFFICIENT_STORAGE', `There is not enough free disk space to store ${bytes} bytes; nothing was stored`);
