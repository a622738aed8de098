/**
 * RFC 7807 Problem Details: the one error format of every REST endpoint. `toProblem` is the single
 * place where service errors, validation failures and framework errors become HTTP responses. The
 * type table mirrors openapi/components/problem.yaml.
 */
import { MAX_PATH_SEGMENT } from './path-limits.ts';
import { isDatabaseUnavailable, AppError, type AppErrorCode, type Violation, type ViolationSource } from '../errors.ts';

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance: string;
  code?: string;
  errors?: FieldError[];
}

/** One entry of a Problem's `errors` (components/problem.yaml Violation). */
export interface FieldError {
  field: string;
  message: string;
}

const PARAMETER_LOCATION: Record<Exclude<ViolationSource, 'input'>, string> = { parameter: 'query', identifier: 'path' };

/**
 * Where a violation is, as REST names it (components/problem.yaml): a property of the input is a JSON
 * Pointer into the request body (`/price`, `/items/2/productId`; the empty string for the body as a
 * whole), a parameter is `<in>.<name>` (`query.minPrice`, `path.id`, `query.sort.0`).
 */
export function restField(violation: Violation): string {
  const source = violation.source ?? 'input';
  if (source === 'input') return violation.field.map((s) => `/${String(s).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
  return [PARAMETER_LOCATION[source], ...violation.field].join('.');
}

export type ProblemKind =
  | 'validation-error'
  | 'malformed-json'
  | 'malformed-request'
  | 'invalid-cursor'
  | 'empty-file'
  | 'unauthorized'
  | 'forbidden'
  | 'not-found'
  | 'method-not-allowed'
  | 'not-acceptable'
  | 'request-timeout'
  | 'conflict'
  | 'precondition-failed'
  | 'payload-too-large'
  | 'quota-exceeded'
  | 'uri-too-long'
  | 'unsupported-media-type'
  | 'header-fields-too-large'
  | 'expectation-failed'
  | 'upgrade-required'
  | 'insufficient-storage'
  | 'too-many-requests'
  | 'internal-error'
  | 'service-unavailable';

const KINDS: Record<ProblemKind, { status: number; title: string }> = {
  'validation-error': { status: 400, title: 'Validation failed' },
  'malformed-json': { status: 400, title: 'Malformed JSON' },
  'malformed-request': { status: 400, title: 'Malformed request' },
  'invalid-cursor': { status: 400, title: 'Invalid cursor' },
  'empty-file': { status: 400, title: 'Empty file' },
  unauthorized: { status: 401, title: 'Unauthorized' },
  forbidden: { status: 403, title: 'Forbidden' },
  'not-found': { status: 404, title: 'Not found' },
  'method-not-allowed': { status: 405, title: 'Method not allowed' },
  'not-acceptable': { status: 406, title: 'Not acceptable' },
  'request-timeout': { status: 408, title: 'Request timeout' },
  conflict: { status: 409, title: 'Conflict' },
  'precondition-failed': { status: 412, title: 'Precondition failed' },
  'payload-too-large': { status: 413, title: 'Payload too large' },
  'quota-exceeded': { status: 413, title: 'Quota exceeded' },
  'uri-too-long': { status: 414, title: 'URI too long' },
  'unsupported-media-type': { status: 415, title: 'Unsupported media type' },
  'expectation-failed': { status: 417, title: 'Expectation failed' },
  'upgrade-required': { status: 426, title: 'Upgrade required' },
  'too-many-requests': { status: 429, title: 'Too many requests' },
  'header-fields-too-large': { status: 431, title: 'Request header fields too large' },
  'internal-error': { status: 500, title: 'Internal server error' },
  'insufficient-storage': { status: 507, title: 'Insufficient storage' },
  'service-unavailable': { status: 503, title: 'Service unavailable' },
};

const KIND_BY_CODE: Record<AppErrorCode, ProblemKind> = {
  NOT_FOUND: 'not-found',
  VALIDATION: 'validation-error',
  CONFLICT: 'conflict',
  PRECONDITION_FAILED: 'precondition-failed',
  UNAUTHENTICATED: 'unauthorized',
  FORBIDDEN: 'forbidden',
  PAYLOAD_TOO_LARGE: 'payload-too-large',
  UNSUPPORTED_MEDIA_TYPE: 'unsupported-media-type',
  NOT_ACCEPTABLE: 'not-acceptable',
  TOO_MANY_REQUESTS: 'too-many-requests',
  INSUFFICIENT_STORAGE: 'insufficient-storage',
};

/** Reasons that have a problem type of their own. */
const KIND_BY_REASON: Record<string, ProblemKind> = {
  INVALID_CURSOR: 'invalid-cursor',
  EMPTY_FILE: 'empty-file',
  QUOTA_EXCEEDED: 'quota-exceeded',
  MALFORMED_REQUEST: 'malformed-request',
};

/**
 * The request path as a valid URI reference: a path Fastify refused for its broken percent-encoding
 * (`/products/%E0%A4%A`) keeps its text with the stray `%` escaped, so `instance` always parses.
 */
function instanceOf(url: string): string {
  const path = url.split('?')[0]!;
  if (/^[A-Za-z0-9\-._~!$&'()*+,;=:@/]*$/.test(path)) return path;
  return path.replace(/%(?![0-9A-Fa-f]{2})|[^A-Za-z0-9\-._~!$&'()*+,;=:@/%]/g, (c) => (c === '%' ? '%25' : encodeURIComponent(c)));
}

export function problem(kind: ProblemKind, detail: string, url: string, extra: Pick<Problem, 'code' | 'errors'> = {}): Problem {
  const { status, title } = KINDS[kind];
  return { type: `/problems/${kind}`, title, status, detail, instance: instanceOf(url), ...extra };
}

/** The status of a problem kind (for writers that build the status line themselves). */
export function problemStatus(kind: ProblemKind): number {
  return KINDS[kind].status;
}

interface FrameworkError {
  statusCode?: number;
  code?: string;
  message?: string;
}

/** Fastify's own client errors, by code, with messages safe to show. */
const FRAMEWORK_ERRORS: Record<string, [ProblemKind, string]> = {
  FST_ERR_CTP_INVALID_JSON_BODY: ['malformed-json', 'The request body is not valid JSON'],
  FST_ERR_CTP_EMPTY_JSON_BODY: ['malformed-json', 'The request body is empty but the content type is JSON'],
  FST_ERR_CTP_INVALID_MEDIA_TYPE: ['unsupported-media-type', 'Unsupported request content type'],
  FST_ERR_CTP_BODY_TOO_LARGE: ['payload-too-large', 'The request body is too large'],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: ['malformed-request', 'Content-Length does not match the body'],
  // Raised before routing (Fastify's frameworkErrors): the path cannot be decoded or is too long.
  FST_ERR_BAD_URL: ['malformed-request', 'The request URL is not valid (broken percent-encoding)'],
  FST_ERR_MAX_PARAM_LENGTH: ['uri-too-long', `A path segment is longer than ${MAX_PATH_SEGMENT} characters`],
  // @fastify/multipart limits and content-type checks (uploads of product images and files).
  FST_REQ_FILE_TOO_LARGE: ['payload-too-large', 'The uploaded file is too large'],
  FST_PARTS_LIMIT: ['payload-too-large', 'The multipart body has too many parts'],
  FST_FILES_LIMIT: ['payload-too-large', 'The multipart body has too many files'],
  FST_FIELDS_LIMIT: ['payload-too-large', 'The multipart body has too many fields'],
  FST_INVALID_MULTIPART_CONTENT_TYPE: ['unsupported-media-type', 'The request is not multipart/form-data'],
};

/** Other client errors a plugin may raise with a status only. */
const KIND_BY_STATUS: Partial<Record<number, ProblemKind>> = Object.fromEntries(
  (Object.keys(KINDS) as ProblemKind[])
    .filter((k) => !['validation-error', 'malformed-json', 'invalid-cursor', 'empty-file', 'quota-exceeded'].includes(k))
    .map((k) => [KINDS[k].status, k]),
);

/** Maps anything thrown during a request to a Problem. Unknown errors become an opaque 500. */
export function toProblem(error: unknown, url: string): Problem {
  if (error instanceof AppError) {
    const kind = (error.reason && KIND_BY_REASON[error.reason]) || KIND_BY_CODE[error.code];
    return problem(kind, error.message, url, {
      ...(error.reason ? { code: error.reason } : {}),
      ...(error.violations.length ? { errors: error.violations.map((v) => ({ field: restField(v), message: v.message })) } : {}),
    });
  }
  const fe = error as FrameworkError | null;
  const known = fe?.code ? FRAMEWORK_ERRORS[fe.code] : undefined;
  if (known) return problem(known[0], known[1], url);
  // PostgreSQL "data exception" (SQLSTATE class 22): a value passed the schema but cannot be stored,
  // e.g. a NUL character in text or jsonb. The client's input is at fault, so it is a 400, not a 500.
  if (typeof fe?.code === 'string' && /^22[0-9A-Z]{3}$/.test(fe.code) && fe.statusCode === undefined) {
    return problem('validation-error', 'The request contains a value that cannot be stored (for example a NUL character)', url);
  }
  if (isDatabaseUnavailable(error)) return problem('service-unavailable', 'The database cannot be reached right now; retry shortly', url);
  // PostgreSQL's disk_full: the transaction was undone, nothing was stored.
  if (fe?.code === '53100') return problem('insufficient-storage', 'The database has no disk space left for this; nothing was stored', url);
  if (typeof fe?.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500) {
    const kind = KIND_BY_STATUS[fe.statusCode] ?? 'malformed-request';
    return problem(kind, kind === 'malformed-request' ? 'The request could not be processed' : KINDS[kind].title, url);
  }
  return problem('internal-error', 'An unexpected error occurred; it has been logged', url);
}
