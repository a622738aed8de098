/**
 * openapi/admin.yaml: tenants, their SCIM tokens, identity providers, domains and portal links. Every operation is
 * ADMIN-only by the document.
 */
import type { operations } from '../../../generated/openapi/admin.ts';
import { validationFailed } from '../../errors.ts';
import type { OperationHandlers } from '../../http/openapi-routes.ts';
import { parseSort } from '../../http/sort-params.ts';
import type { Services } from '../../services.ts';
import { tenantPath, toIssuedScimToken, toScimTokenPage, toTenant, toTenantPage } from './admin.representation.ts';
import { toDomain, toIdentityProvider, toSamlKeyList } from './sso-admin.representation.ts';
import { TENANT_SORT_FIELDS } from './tenants.service.ts';
import { LINK_TTL_MINUTES } from '../../portal/portal.service.ts';
import { toPortalLink } from '../../portal/portal.representation.ts';
import { principalOf } from '../../http/principal-of.ts';
import { toScimActivityPage } from '../scim/scim-activity.representation.ts';

/** A test sign-in URL works as long as the sign-in it starts (src/identity/saml, src/identity/oidc). */
const TEST_SIGN_IN_TTL_MS = 10 * 60_000;

export function adminHandlers(
  {
    tenants,
    scimTokens,
    scimActivity,
    identityProviders,
    domains,
    saml,
    samlSpKeys,
    oidc,
    portal,
  }: Pick<
    Services,
    'tenants' | 'scimTokens' | 'scimActivity' | 'identityProviders' | 'domains' | 'saml' | 'samlSpKeys' | 'oidc' | 'portal'
  >,
  baseUrl: string,
): OperationHandlers<operations> {
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

    createPortalLink: async (request, reply) => {
      const { intents, expiresInMinutes = LINK_TTL_MINUTES.default } = request.body;
      const issued = await portal.createLink(request.params.tenantId, intents, expiresInMinutes, principalOf(request).userId);
      // The only response that carries the link's token: no cache may keep it.
      reply.code(201).header('Cache-Control', 'no-store');
      return toPortalLink(issued.link, issued.token, baseUrl);
    },

    listScimTokens: async (request) => {
      const { page = 0, size = 20 } = request.query;
      return toScimTokenPage(await scimTokens.list(request.params.tenantId, { page, size }), page, size);
    },

    listScimActivity: async (request) => {
      const { page = 0, size = 20, outcome } = request.query;
      const query = { page, size, ...(outcome ? { outcome } : {}) };
      return toScimActivityPage(await scimActivity.list(request.params.tenantId, query), page, size);
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

    getIdentityProvider: async (request) => toIdentityProvider(await identityProviders.get(request.params.tenantId), baseUrl),

    putIdentityProvider: async (request) => {
      // The configuration object may name its tenant (the interface document's shape); it must be this one.
      const { tenantId: named, ...settings } = request.body;
      if (named !== undefined && named !== request.params.tenantId) {
        throw validationFailed([
          { field: ['tenantId'], message: `must be the tenant of the path (${request.params.tenantId}) when given` },
        ]);
      }
      return toIdentityProvider(await identityProviders.put(request.params.tenantId, settings), baseUrl);
    },

    deleteIdentityProvider: async (request, reply) => {
      await identityProviders.remove(request.params.tenantId);
      return reply.code(204).send();
    },

    getLastTestSignIn: async (request, reply) => {
      reply.header('Cache-Control', 'no-store');
      return identityProviders.lastTestSignIn(request.params.tenantId);
    },

    startTestSignIn: async (request, reply) => {
      const { tenantId } = request.params;
      const provider = await identityProviders.get(tenantId);
      const expiresAt = new Date(Date.now() + TEST_SIGN_IN_TTL_MS).toISOString();
      // A test sign-in signs nobody in, so it has no browser binding (the administrator's browser may differ).
      const { url } =
        provider.protocol === 'saml'
          ? await saml.loginUrl(tenantId, '/', { test: true })
          : await oidc.loginUrl(tenantId, '/', { test: true });
      reply.code(201).header('Cache-Control', 'no-store');
      return { url, expiresAt };
    },

    listSamlKeys: async (request) => toSamlKeyList(await samlSpKeys.list(request.params.tenantId)),

    rotateSamlKeys: async (request) => toSamlKeyList(await samlSpKeys.rotate(request.params.tenantId)),

    getDomainEnforcementImpact: async (request) => domains.enforcementImpact(request.params.tenantId, request.params.domain),

    listDomains: async (request) => ({ content: (await domains.list(request.params.tenantId)).map(toDomain) }),

    addDomain: async (request, reply) => {
      const row = await domains.add(request.params.tenantId, request.body.domain);
      reply.code(201).header('Location', `${tenantPath(row.tenant_id)}/domains/${row.domain}`);
      return toDomain(row);
    },

    getDomain: async (request) => toDomain(await domains.get(request.params.tenantId, request.params.domain)),

    updateDomain: async (request) => {
      const { tenantId, domain } = request.params;
      const hasProvider = (await identityProviders.find(tenantId)) !== null;
      return toDomain(await domains.setEnforceSso(tenantId, domain, request.body.enforceSso, hasProvider));
    },

    deleteDomain: async (request, reply) => {
      await domains.remove(request.params.tenantId, request.params.domain);
      return reply.code(204).send();
    },

    verifyDomain: async (request) => toDomain(await domains.verify(request.params.tenantId, request.params.domain, request.body ?? {})),

    sendDomainVerificationMail: async (request, reply) => {
      const sent = await domains.sendVerificationMail(request.params.tenantId, request.params.domain, request.body.to);
      reply.code(202);
      return { sentTo: sent.sentTo, expiresAt: sent.expiresAt.toISOString() };
    },
  };
}
