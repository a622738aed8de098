/**
 * What the /scim/v2 scope records of each request a tenant's SCIM token authenticated
 * (scim-activity.service.ts stores it): the operation and resource it addressed, the label the
 * request or its answer named, the status and, for a failure, the SCIM error's scimType and detail.
 * Only those fields are read from the request and the answer: never a header, a password or a body.
 *
 * The row is written once the response has gone (`onResponse`), so recording adds no latency, and a
 * failure to record is logged, never the request's failure. Writes still under way when the server
 * closes are awaited (`onClose`) before the database closes.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { operations } from '../../../generated/openapi/scim.ts';
import { ERROR_SCHEMA } from './scim-schema.ts';

type ScimOperation = 'list' | 'get' | 'create' | 'replace' | 'patch' | 'delete' | 'other';
type ScimResourceType = 'User' | 'Group' | 'ServiceProviderConfig' | 'Schemas' | 'ResourceTypes';

/** One request, as recorded. */
export interface ScimActivityEntry {
  /** When the request arrived. */
  at: Date;
  method: string;
  operation: ScimOperation;
  /** Null for a request that matched no operation (its 404 or 405 says so). */
  resourceType: ScimResourceType | null;
  resourceId: string | null;
  resourceLabel: string | null;
  status: number;
  outcome: 'success' | 'failure';
  scimType: string | null;
  detail: string | null;
}

/** Each operation of scim.yaml, what it does to what: a new operation does not compile until it says. */
const OPERATIONS: Record<keyof operations, [ScimOperation, ScimResourceType]> = {
  scimListUsers: ['list', 'User'],
  scimCreateUser: ['create', 'User'],
  scimGetUser: ['get', 'User'],
  scimReplaceUser: ['replace', 'User'],
  scimPatchUser: ['patch', 'User'],
  scimDeleteUser: ['delete', 'User'],
  scimListGroups: ['list', 'Group'],
  scimCreateGroup: ['create', 'Group'],
  scimGetGroup: ['get', 'Group'],
  scimReplaceGroup: ['replace', 'Group'],
  scimPatchGroup: ['patch', 'Group'],
  scimDeleteGroup: ['delete', 'Group'],
  scimServiceProviderConfig: ['get', 'ServiceProviderConfig'],
  scimListResourceTypes: ['list', 'ResourceTypes'],
  scimGetResourceType: ['get', 'ResourceTypes'],
  scimListSchemas: ['list', 'Schemas'],
  scimGetSchema: ['get', 'Schemas'],
};

/** A SCIM error's detail is kept to this many characters (the column's check says the same). */
const DETAIL_MAX = 300;
/** An id or a label longer than this is cut: it is a hint on a screen, not a key. */
const LABEL_MAX = 256;

declare module 'fastify' {
  interface FastifyRequest {
    /** What the answer named, for the activity record (set before serialization), else null. */
    scimAnswerFacts: AnswerFacts | null;
  }
}

/** The fields the request's answer named, taken before it is serialized. */
interface AnswerFacts {
  id?: string;
  label?: string;
  scimType?: string;
  detail?: string;
}

function stringField(value: unknown, field: string): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const found = (value as Record<string, unknown>)[field];
  return typeof found === 'string' ? found : undefined;
}

function cut(value: string | undefined, max: number): string | null {
  if (value === undefined) return null;
  return value.length > max ? `${value.slice(0, max - 1)}…` : value;
}

/** A user is named by its userName, a group by its displayName. */
function labelOf(resourceType: ScimResourceType | null, value: unknown): string | undefined {
  if (resourceType === 'User') return stringField(value, 'userName');
  if (resourceType === 'Group') return stringField(value, 'displayName');
  return undefined;
}

function operationOf(request: FastifyRequest): [ScimOperation, ScimResourceType | null] {
  const operationId = request.routeOptions.config.operationId;
  return operationId !== undefined && Object.hasOwn(OPERATIONS, operationId)
    ? OPERATIONS[operationId as keyof operations]
    : ['other', null];
}

/** The row of one answered request. */
function entryOf(request: FastifyRequest, reply: FastifyReply): ScimActivityEntry {
  const [operation, resourceType] = operationOf(request);
  const answer = request.scimAnswerFacts ?? {};
  const params = request.params as Record<string, unknown> | undefined;
  const success = reply.statusCode >= 200 && reply.statusCode < 300;
  const pathId = operation === 'other' ? undefined : (stringField(params, 'id') ?? stringField(params, 'name'));
  const requestLabel = operation === 'create' || operation === 'replace' ? labelOf(resourceType, request.body) : undefined;
  return {
    at: new Date(Date.now() - reply.elapsedTime),
    method: request.method,
    operation,
    resourceType,
    resourceId: cut(pathId ?? (operation === 'list' ? undefined : answer.id), LABEL_MAX),
    resourceLabel: cut(answer.label ?? requestLabel, LABEL_MAX),
    status: reply.statusCode,
    outcome: success ? 'success' : 'failure',
    scimType: success ? null : cut(answer.scimType, 64),
    detail: success ? null : cut(answer.detail, DETAIL_MAX),
  };
}

interface Log {
  warn(obj: object, msg: string): void;
}

/**
 * Records every request of `scope` that a SCIM token authenticated (`request.scimTenantId`) through
 * `record`. Register before the scope's routes.
 */
export function recordScimActivity(
  scope: FastifyInstance,
  record: (tenantId: string, entry: ScimActivityEntry) => Promise<void>,
  log: Log,
): void {
  const writing = new Set<Promise<void>>();
  scope.decorateRequest('scimAnswerFacts', null);

  // The answer as the handler or the error handler gave it, before serialization: a resource, a
  // list (nothing taken) or a SCIM error.
  scope.addHook('preSerialization', async (request: FastifyRequest, _reply, payload) => {
    if (request.scimTenantId === null) return payload;
    const schemas = (payload as { schemas?: unknown } | null)?.schemas;
    if (Array.isArray(schemas) && schemas.includes(ERROR_SCHEMA)) {
      request.scimAnswerFacts = {
        ...withValue('scimType', stringField(payload, 'scimType')),
        ...withValue('detail', stringField(payload, 'detail')),
      };
      return payload;
    }
    const [operation, resourceType] = operationOf(request);
    if (operation !== 'list') {
      request.scimAnswerFacts = { ...withValue('id', stringField(payload, 'id')), ...withValue('label', labelOf(resourceType, payload)) };
    }
    return payload;
  });

  scope.addHook('onResponse', async (request: FastifyRequest, reply) => {
    const tenantId = request.scimTenantId;
    if (tenantId === null) return;
    const write = record(tenantId, entryOf(request, reply))
      .catch((error: unknown) => log.warn({ err: error, tenantId }, 'recording SCIM activity failed; the request was answered'))
      .finally(() => writing.delete(write));
    writing.add(write);
  });

  scope.addHook('onClose', async () => {
    await Promise.all(writing);
  });
}

function withValue<K extends keyof AnswerFacts>(key: K, value: string | undefined): Partial<Record<K, string>> {
  return value === undefined ? {} : ({ [key]: value } as Partial<Record<K, string>>);
}
