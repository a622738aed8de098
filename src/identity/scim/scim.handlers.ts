/** openapi/scim.yaml: thin handlers over the SCIM services; every body is application/scim+json. */
import { ifMatchVersions } from '../../http/etag.ts';
import type { components, operations } from '../../../generated/openapi/scim.ts';
import type { OperationHandlers, ReplyHeaders } from '../../http/openapi-routes.ts';
import type { Services } from '../../services.ts';
import { projectAttributes } from './scim-attributes.ts';
import { resourceTypes, schemas, serviceProviderConfig } from './scim-discovery.ts';
import { toScimGroup } from './scim-groups.representation.ts';
import { SCIM_MAX_RESULTS, type ScimListQuery } from './scim-list.ts';
import { SCIM_MEDIA_TYPE } from './scim-media-type.ts';
import type { PatchOperation } from './scim-patch.ts';
import { LIST_SCHEMA } from './scim-schema.ts';
import { toScimUser } from './scim-users.representation.ts';
import { AppError } from '../../errors.ts';

type ListResponse = components['schemas']['ListResponse'];

interface ListParameters {
  filter?: string;
  startIndex?: number;
  count?: number;
  sortBy?: string;
  sortOrder?: 'ascending' | 'descending';
}

/** RFC 7644 §3.4.2.4: startIndex below 1 counts as 1; count below 0 as 0, above the maximum as it. */
function listQuery(tenantId: string, q: ListParameters): ScimListQuery {
  return {
    tenantId,
    ...(q.filter !== undefined ? { filter: q.filter } : {}),
    startIndex: Math.max(1, q.startIndex ?? 1),
    count: Math.min(SCIM_MAX_RESULTS, Math.max(0, q.count ?? SCIM_MAX_RESULTS)),
    ...(q.sortBy !== undefined ? { sortBy: q.sortBy } : {}),
    ...(q.sortOrder !== undefined ? { sortOrder: q.sortOrder } : {}),
  };
}

function listResponse(totalResults: number, startIndex: number, resources: ListResponse['Resources']): ListResponse {
  return { schemas: [LIST_SCHEMA], totalResults, startIndex, itemsPerPage: resources.length, Resources: resources };
}

/**
 * A resource answer's headers: the SCIM media type and, for users and groups, the version as `ETag`
 * (and, for one just created, its `Location`). The body is the handler's to return, checked against
 * the operation's document.
 */
function scimAnswer<B extends object>(reply: ReplyHeaders, body: B, created = false): B {
  reply.type(SCIM_MEDIA_TYPE);
  const { meta } = body as { meta?: { version?: string; location?: string } };
  if (meta?.version) reply.header('ETag', meta.version);
  if (created && meta?.location) reply.header('Location', meta.location);
  return body;
}

function tenantOf(request: { scimTenantId: string | null }): string {
  // The scope's token hook has refused every request without one; this is its type-level statement.
  if (request.scimTenantId === null) throw new AppError('UNAUTHENTICATED', 'A SCIM token is required');
  return request.scimTenantId;
}

export function scimHandlers(
  { scimUsers, scimGroups }: Pick<Services, 'scimUsers' | 'scimGroups'>,
  baseUrl: string,
): OperationHandlers<operations> {
  const user = (record: Parameters<typeof toScimUser>[0]) => toScimUser(record, baseUrl);
  const group = (record: Parameters<typeof toScimGroup>[0]) => toScimGroup(record, baseUrl);
  return {
    scimListUsers: async (request, reply) => {
      const query = listQuery(tenantOf(request), request.query);
      const { totalResults, records } = await scimUsers.list(query);
      const resources = records.map((r) => projectAttributes(user(r), 'User', request.query));
      return scimAnswer(reply, listResponse(totalResults, query.startIndex, resources));
    },
    scimCreateUser: async (request, reply) =>
      scimAnswer(reply.code(201), user(await scimUsers.create(tenantOf(request), request.body)), true),
    scimGetUser: async (request, reply) => {
      const resource = user(await scimUsers.get(tenantOf(request), request.params.id));
      return scimAnswer(reply, projectAttributes(resource, 'User', request.query));
    },
    scimReplaceUser: async (request, reply) => {
      const expected = ifMatchVersions(request.headers['if-match'], 'weak');
      return scimAnswer(reply, user(await scimUsers.replace(tenantOf(request), request.params.id, request.body, expected)));
    },
    scimPatchUser: async (request, reply) => {
      const expected = ifMatchVersions(request.headers['if-match'], 'weak');
      const operations = request.body.Operations as PatchOperation[];
      return scimAnswer(reply, user(await scimUsers.patch(tenantOf(request), request.params.id, operations, expected)));
    },
    scimDeleteUser: async (request, reply) => {
      await scimUsers.delete(tenantOf(request), request.params.id, ifMatchVersions(request.headers['if-match'], 'weak'));
      return reply.code(204).send();
    },

    scimListGroups: async (request, reply) => {
      const query = listQuery(tenantOf(request), request.query);
      const { totalResults, records } = await scimGroups.list(query);
      const resources = records.map((r) => projectAttributes(group(r), 'Group', request.query));
      return scimAnswer(reply, listResponse(totalResults, query.startIndex, resources));
    },
    scimCreateGroup: async (request, reply) =>
      scimAnswer(reply.code(201), group(await scimGroups.create(tenantOf(request), request.body)), true),
    scimGetGroup: async (request, reply) => {
      const resource = group(await scimGroups.get(tenantOf(request), request.params.id));
      return scimAnswer(reply, projectAttributes(resource, 'Group', request.query));
    },
    scimReplaceGroup: async (request, reply) => {
      const expected = ifMatchVersions(request.headers['if-match'], 'weak');
      return scimAnswer(reply, group(await scimGroups.replace(tenantOf(request), request.params.id, request.body, expected)));
    },
    scimPatchGroup: async (request, reply) => {
      const expected = ifMatchVersions(request.headers['if-match'], 'weak');
      const operations = request.body.Operations as PatchOperation[];
      return scimAnswer(reply, group(await scimGroups.patch(tenantOf(request), request.params.id, operations, expected)));
    },
    scimDeleteGroup: async (request, reply) => {
      await scimGroups.delete(tenantOf(request), request.params.id, ifMatchVersions(request.headers['if-match'], 'weak'));
      return reply.code(204).send();
    },

    scimServiceProviderConfig: async (_request, reply) => scimAnswer(reply, serviceProviderConfig(baseUrl)),
    scimListResourceTypes: async (_request, reply) => {
      const all = resourceTypes(baseUrl);
      return scimAnswer(reply, listResponse(all.length, 1, all));
    },
    scimGetResourceType: async (request, reply) => {
      const found = resourceTypes(baseUrl).find((t) => t.id === request.params.name);
      if (!found) throw new AppError('NOT_FOUND', `No resource type ${request.params.name}`);
      return scimAnswer(reply, found);
    },
    scimListSchemas: async (_request, reply) => {
      const all = schemas(baseUrl);
      return scimAnswer(reply, listResponse(all.length, 1, all));
    },
    scimGetSchema: async (request, reply) => {
      const found = schemas(baseUrl).find((s) => s.id === request.params.id);
      if (!found) throw new AppError('NOT_FOUND', `No schema ${request.params.id}`);
      return scimAnswer(reply, found);
    },
  };
}
