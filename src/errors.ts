/**
 * Errors a service may throw. They carry no HTTP or GraphQL detail: each transport maps them once
 * (src/http/problem.ts for REST, src/graphql/errors.ts for GraphQL).
 */
export interface Violation {
  /** Path of the offending input, e.g. `/price` (REST body), `query.size`, or `input.email` (GraphQL). */
  field: string;
  message: string;
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
  | 'PRECONDITION_FAILED';

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

/** PostgreSQL unique_violation, raised by both drivers with the same SQLSTATE. */
export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  const e = error as { code?: string; constraint?: string } | null;
  return e?.code === '23505' && (constraint === undefined || e.constraint === constraint);
}
