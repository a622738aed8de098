/**
 * The tenants plugin (openapi/admin.yaml: tenants, their SCIM tokens, identity providers and domains)
 * for ADMIN callers with a bearer JWT (or, within its intents, a portal session), answering in Problem Details. Its sibling, registered beside it
 * by src/app.ts, is the SCIM plugin under /scim/v2 (src/identity/scim/scim.plugin.ts), which has its
 * own authentication and never sees this one's.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { operations } from '../../../generated/openapi/admin.ts';
import * as bodies from '../../../generated/validators/admin.bodies.js';
import * as params from '../../../generated/validators/admin.params.js';
import type { Authenticator } from '../../auth/authenticate.ts';
import { bearerAuthentication } from '../../auth/bearer-hook.ts';
import { registerOperations } from '../../http/openapi-routes.ts';
import type { AreaOptions } from '../../services.ts';
import { adminHandlers } from './admin.handlers.ts';

/** The admin API's services. */
type TenantsServices =
  | 'tenants'
  | 'scimTokens'
  | 'scimActivity'
  | 'identityProviders'
  | 'domains'
  | 'saml'
  | 'samlSpKeys'
  | 'oidc'
  | 'portal';

interface TenantsOptions extends AreaOptions<TenantsServices> {
  /** The public base address: the identity provider settings name its sign-in endpoints as absolute URLs. */
  baseUrl: string;
  /** The portal session's reader, for the operations with `x-portal-intent`. */
  authenticatePortal: Authenticator;
}

export const tenantsPlugin: FastifyPluginAsync<TenantsOptions> = async (admin, { services, authenticate, authenticatePortal, baseUrl }) => {
  admin.addHook('onRequest', bearerAuthentication(authenticate));
  registerOperations<operations>(admin, 'admin', { params, bodies }, adminHandlers(services, baseUrl), { portal: authenticatePortal });
};
