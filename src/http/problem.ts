/**
 * RFC 7807 Problem Details: the one error format of every REST endpoint. `toProblem` is the single
 * place where service errors, validation failures and framework errors become HTTP responses. The
 * problem types, their status and title are the document's (`x-problem-types` of
 * openapi/components/problem.yaml, generated into generated/openapi/problem-types.ts); this file says
 * which error becomes which type.
 */
import { problemTypes, type ProblemKind } from '../../generated/openapi/problem-types.ts';
import { clientFault, DATA_EXCEPTION, type ClientFault } from './framework-errors.ts';
import { isDatabaseUnavailable, AppError, type AppErrorCode, type Violation, type ViolationSource } from '../errors.ts';

interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance: string;
  code?: string;
  errors?: FieldError[];
}

/** One entry of a Problem's `errors` (components/problem.yaml Violation). */
interface FieldError {
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
  const { status, title } = problemTypes[kind];
  return { type: `/problems/${kind}`, title, status, detail, instance: instanceOf(url), ...extra };
}

/** The status of a problem kind (for writers that build the status line themselves). */
export function problemStatus(kind: ProblemKind): number {
  return problemTypes[kind].status;
}

/** Where kinds share a status, the one a bare status means (the others need a reason of their own). */
const KIND_OF_SHARED_STATUS: Partial<Record<number, ProblemKind>> = { 400: 'malformed-request', 413: 'payload-too-large' };

/**
 * Client errors by status: framework-errors.ts's table, and others a plugin may raise with a status
 * only. A kind the document adds with a status of its own is found here without an edit.
 */
const KIND_BY_STATUS: Partial<Record<number, ProblemKind>> = (() => {
  const kinds = Object.keys(problemTypes) as ProblemKind[];
  const statusOf = (kind: ProblemKind): number => problemTypes[kind].status;
  const alone = kinds.filter((kind) => kinds.filter((k) => statusOf(k) === statusOf(kind)).length === 1);
  return { ...Object.fromEntries(alone.map((kind) => [statusOf(kind), kind])), ...KIND_OF_SHARED_STATUS };
})();

/** The problem type of a framework or data error: by its status, but for malformed JSON and unstorable values. */
function faultKind(fault: ClientFault): ProblemKind {
  if (fault.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || fault.code === 'FST_ERR_CTP_EMPTY_JSON_BODY') return 'malformed-json';
  if (fault.code === DATA_EXCEPTION) return 'validation-error';
  return KIND_BY_STATUS[fault.status] ?? 'malformed-request';
}

/** Maps anything thrown during a request to a Problem. Unknown errors become an opaque 500. */
export function toProblem(error: unknown, url: string): Problem {
  if (error instanceof AppError) {
    const kind = (error.reason && KIND_BY_REASON[error.reason]) || KIND_BY_CODE[error.code];
    return problem(kind, error.message, url, {
      ...(error.reason ? { code: error.reason } : {}),
      ...(error.violations.length ? { errors: error.violations.map((v) => ({ field: restField(v), message: v.message })) } : {}),
    });
  }
  const fault = clientFault(error);
  if (fault) return problem(faultKind(fault), fault.detail, url);
  const fe = error as { code?: unknown; statusCode?: unknown } | null;
  if (isDatabaseUnavailable(error)) return problem('service-unavailable', 'The database cannot be reached right now; retry shortly', url);
  // PostgreSQL's disk_full: the transaction was undone, nothing was stored.
  if (fe?.code === '53100') return problem('insufficient-storage', 'The database has no disk space left for this; nothing was stored', url);
  if (typeof fe?.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500) {
    const kind = KIND_BY_STATUS[fe.statusCode] ?? 'malformed-request';
    return problem(kind, kind === 'malformed-request' ? 'The request could not be processed' : problemTypes[kind].title, url);
  }
  return problem('internal-error', 'An unexpected error occurred; it has been logged', url);
}
