/**
 * The one table of errors the framework and the database raise for a client's fault: Fastify's and
 * its plugins' refusals of a request (by their code) and PostgreSQL's data exceptions. Each scope's
 * error renderer (REST: problem.ts, SCIM: its error handler) formats the status and detail it gives.
 */
import { MAX_PATH_SEGMENT } from './path-limits.ts';

/** A client error: its status, the code it was known by, and a message safe to show. */
export interface ClientFault {
  status: number;
  /** The framework's error code (`FST_ERR_…`), or DATA_EXCEPTION. */
  code: string;
  detail: string;
}

/** The code of a PostgreSQL data exception (SQLSTATE class 22). */
export const DATA_EXCEPTION = 'DATA_EXCEPTION';

/** Fastify's own client errors, by code, with messages safe to show. */
const FRAMEWORK_ERRORS: Record<string, [number, string]> = {
  FST_ERR_CTP_INVALID_JSON_BODY: [400, 'The request body is not valid JSON'],
  FST_ERR_CTP_EMPTY_JSON_BODY: [400, 'The request body is empty but the content type is JSON'],
  FST_ERR_CTP_INVALID_MEDIA_TYPE: [415, 'Unsupported request content type'],
  FST_ERR_CTP_BODY_TOO_LARGE: [413, 'The request body is too large'],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: [400, 'Content-Length does not match the body'],
  // Raised before routing (Fastify's frameworkErrors): the path cannot be decoded or is too long.
  FST_ERR_BAD_URL: [400, 'The request URL is not valid (broken percent-encoding)'],
  FST_ERR_MAX_PARAM_LENGTH: [414, `A path segment is longer than ${MAX_PATH_SEGMENT} characters`],
  // @fastify/multipart limits and content-type checks (uploads of product images and files).
  FST_REQ_FILE_TOO_LARGE: [413, 'The uploaded file is too large'],
  FST_PARTS_LIMIT: [413, 'The multipart body has too many parts'],
  FST_FILES_LIMIT: [413, 'The multipart body has too many files'],
  FST_FIELDS_LIMIT: [413, 'The multipart body has too many fields'],
  FST_INVALID_MULTIPART_CONTENT_TYPE: [415, 'The request is not multipart/form-data'],
};

/** The client error `error` is, when the table knows it; undefined for anything else. */
export function clientFault(error: unknown): ClientFault | undefined {
  const fe = error as { code?: unknown; statusCode?: unknown } | null;
  if (typeof fe?.code !== 'string') return undefined;
  const known = FRAMEWORK_ERRORS[fe.code];
  if (known) return { status: known[0], code: fe.code, detail: known[1] };
  // PostgreSQL "data exception" (SQLSTATE class 22): a value passed the schema but cannot be stored,
  // e.g. a NUL character in text or jsonb. The client's input is at fault, so it is a 400, not a 500.
  if (/^22[0-9A-Z]{3}$/.test(fe.code) && fe.statusCode === undefined) {
    return {
      status: 400,
      code: DATA_EXCEPTION,
      detail: 'The request contains a value that cannot be stored (for example a NUL character)',
    };
  }
  return undefined;
}
