/**
 * The one mapping of errors to SCIM error messages (RFC 7644 §3.12) for everything under /scim/v2:
 * the service layer's typed errors (with their `scimType`), list query errors, the generated
 * validators' violations, Fastify's body parsing refusals and PostgreSQL's data exceptions (as
 * src/http/framework-errors.ts classifies them), and anything unexpected (500).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { lingerBeforeClosing } from '../../http/lingering-close.ts';
import { clientFault, DATA_EXCEPTION, type ClientFault } from '../../http/framework-errors.ts';
import { AppError, isDatabaseUnavailable, VersionMismatch, type AppErrorCode, type Violation } from '../../errors.ts';
import { isScimType, type ScimType } from './scim-errors.ts';
import { ScimQueryError } from './scim-query-error.ts';
import { ERROR_SCHEMA, SCHEMAS } from './scim-schema.ts';
import { SCIM_MEDIA_TYPE } from './scim-media-type.ts';
import { weakTag } from './scim-users.representation.ts';

interface ScimErrorBody {
  schemas: [typeof ERROR_SCHEMA];
  status: string;
  scimType?: ScimType;
  detail: string;
}

const STATUS: Record<AppErrorCode, number> = {
  VALIDATION: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  NOT_ACCEPTABLE: 406,
  CONFLICT: 409,
  PRECONDITION_FAILED: 412,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  TOO_MANY_REQUESTS: 429,
  INSUFFICIENT_STORAGE: 507,
};

/** Where SCIM words a framework error (framework-errors.ts) its own way. */
const SCIM_DETAIL: Partial<Record<string, string>> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'Request bodies must be application/scim+json or application/json',
  FST_ERR_BAD_URL: 'The request URL is not valid (broken percent-encoding or a NUL character)',
};

/** A framework or data error's scimType: a bad URL or an unstorable value is invalidValue, any other 400 invalidSyntax. */
function faultScimType(fault: ClientFault): ScimType | undefined {
  if (fault.status !== 400) return undefined;
  return fault.code === 'FST_ERR_BAD_URL' || fault.code === DATA_EXCEPTION ? 'invalidValue' : 'invalidSyntax';
}

/** The attributes a User or Group must have (`userName`, a group's `displayName`). */
const REQUIRED_ATTRIBUTES: ReadonlySet<string> = new Set(SCHEMAS.flatMap((s) => s.attributes.filter((a) => a.required).map((a) => a.name)));

/**
 * The generated validators' refusals: a bad parameter is invalidValue; so is a body whose only fault
 * is a required attribute missing or not fitting it (RFC 7644 §3.12: "a required value was missing,
 * or the value specified was not compatible with the operation or attribute type", e.g. an empty or
 * overlong `userName`). A body that breaks the schema's shape otherwise (a wrong JSON type, a PatchOp
 * without `Operations`) is invalidSyntax, even beside such a value: its structure is what is wrong.
 */
function validatorScimType(violations: readonly Violation[]): ScimType {
  if (violations.some((v) => (v.source ?? 'input') !== 'input')) return 'invalidValue';
  const requiredValue = (v: Violation) => v.field.length === 1 && REQUIRED_ATTRIBUTES.has(String(v.field[0])) && v.rule !== undefined;
  return violations.every(requiredValue) ? 'invalidValue' : 'invalidSyntax';
}

export function scimError(status: number, detail: string, scimType?: ScimType): ScimErrorBody {
  return { schemas: [ERROR_SCHEMA], status: String(status), ...(scimType ? { scimType } : {}), detail };
}

export function toScimError(error: unknown): ScimErrorBody {
  if (error instanceof ScimQueryError) return scimError(400, error.message, error.scimType);
  if (error instanceof AppError) {
    const status = STATUS[error.code];
    if (error.code === 'VALIDATION' && !isScimType(error.reason)) {
      // The generated validators: their violations say which scimType (validatorScimType).
      const detail = error.violations.length
        ? error.violations.map((v) => `${v.field.join('.') || 'body'}: ${v.message}`).join('; ')
        : error.message;
      return scimError(400, detail, validatorScimType(error.violations));
    }
    if (error.code === 'CONFLICT') return scimError(status, error.message, 'uniqueness');
    return scimError(status, error.message, isScimType(error.reason) ? error.reason : undefined);
  }
  const fault = clientFault(error);
  if (fault) return scimError(fault.status, SCIM_DETAIL[fault.code] ?? fault.detail, faultScimType(fault));
  const fe = error as { statusCode?: unknown } | null;
  if (typeof fe?.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500)
    return scimError(fe.statusCode, 'The request could not be processed', fe.statusCode === 400 ? 'invalidSyntax' : undefined);
  if (isDatabaseUnavailable(error)) return scimError(503, 'The database cannot be reached right now; retry shortly');
  return scimError(500, 'An unexpected error occurred; it has been logged');
}

/** A SCIM error for the raw socket (node's parser refused the request before it was one). */
export function rawScimError(status: number, detail: string): { type: string; body: string } {
  return { type: SCIM_MEDIA_TYPE, body: JSON.stringify(scimError(status, detail, status === 400 ? 'invalidSyntax' : undefined)) };
}

export function sendScimError(error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const body = toScimError(error);
  const status = Number(body.status);
  if (status >= 500) request.log.error({ err: error }, 'SCIM request failed');
  if (status === 401) reply.header('WWW-Authenticate', 'Bearer');
  if (!request.raw.complete) {
    reply.header('Connection', 'close');
    lingerBeforeClosing(request.raw);
  }
  // A refused conditional write names the version to re-read and retry from.
  if (error instanceof VersionMismatch) reply.header('ETag', weakTag(error.currentVersion));
  return reply.code(status).type(SCIM_MEDIA_TYPE).send(body);
}
