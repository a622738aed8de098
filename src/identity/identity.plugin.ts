/**
 * The identity area, two sibling scopes that never see each other's authentication:
 * - openapi/admin.yaml (tenants and their SCIM tokens) for ADMIN callers with a bearer JWT, answering
 *   in Problem Details;
 * - openapi/scim.yaml under /scim/v2 for a tenant's SCIM client with a SCIM token, answering
 *   everything, failures included, in the SCIM format (src/identity/scim/scim.scope.ts).
 */
import type { FastifyPluginAsync } from 'fastify';
import type { operations } from '../../generated/openapi/admin.ts';
import * as bodies from '../../generated/validators/admin.bodies.js';
import * as params from '../../generated/validators/admin.params.js';
import { bearerAuthentication } from '../auth/bearer-hook.ts';
import { registerOperations } from '../http/openapi-routes.ts';
import type { AreaOptions } from '../services.ts';
import { adminHandlers } from './admin.handlers.ts';
import { SCIM_PREFIX, scimScope } from './scim/scim.scope.ts';

/** The admin API's services, and SCIM's (its scope). */
type IdentityServices = 'tenants' | 'scimTokens' | 'identityProviders' | 'domains' | 'saml' | 'oidc' | 'scimUsers' | 'scimGroups';

interface IdentityOptions extends AreaOptions<IdentityServices> {
  /** The public base address: SCIM's `meta.location` and `Location` are absolute URLs. */
  baseUrl: string;
}

export const identityPlugin: FastifyPluginAsync<IdentityOptions> = async (scope, { services, authenticate, baseUrl }) => {
  await scope.register(async (admin) => {
    admin.addHook('onRequest', bearerAuthentication(authenticate));
    registerOperations<operations>(admin, 'admin', { params, bodies }, adminHandlers(services, baseUrl));
  });
  await scope.register(scimScope, { prefix: SCIM_PREFIX, services, baseUrl });
};
