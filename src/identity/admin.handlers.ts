/** openapi/admin.yaml: tenants and their SCIM tokens. Every operation is ADMIN-only by the document. */
import type { operations } from '../../generated/openapi/admin.ts';
import type { OperationHandlers } from '../http/openapi-routes.ts';
import { parseSort } from '../http/sort-params.ts';
import type { Services } from '../services.ts';
import { tenantPath, toIssuedScimToken, toScimTokenPage, toTenant, toTenantPage } from './admin.representation.ts';
import { TENANT_SORT_FIELDS } from './tenants.service.ts';

export function adminHandlers({ tenants, scimTokens }: Services): OperationHandlers<operations> {
  return {
    listTenants: async (request) => {
      const { page = 0, size = 20, sort } = request.query;
      const orders = parseSort(sort, TENANT_SORT_FIELDS, [{ field: 'createdAt', direction: 'desc' }]);
      return toTenantPage(await tenants.list({ orders, page, size }), page, size);
    },

    createTenant: async (request, reply) => {
      const tenant = await tenants.create(request.body);
      reply.code(201).header('Location', tenantPath(tenant.id));
      return toTenant(tenant);
    },

    getTenant: async (request) => toTenant(await tenants.get(request.params.tenantId)),

    listScimTokens: async (request) => {
      const { page = 0, size = 20 } = request.query;
      return toScimTokenPage(await scimTokens.list(request.params.tenantId, { page, size }), page, size);
    },

    issueScimToken: async (request, reply) => {
      const issued = await scimTokens.issue(request.params.tenantId);
      // The only response that carries the secret: no cache may keep it.
      reply.code(201).header('Cache-Control', 'no-store');
      return toIssuedScimToken(issued);
    },

    revokeScimToken: async (request, reply) => {
      await scimTokens.revoke(request.params.tenantId, request.params.tokenId);
      return reply.code(204).send();
    },
  };
}
