/**
 * The portal area's HTTP side: openapi/portal.yaml (the portal session opened with a link). Its
 * session routes read the `sf_portal` cookie only (their security is `portalSession`); opening one
 * reads no credential. The admin and webhooks plugins accept the same session on their operations
 * with `x-portal-intent` (src/http/openapi-routes.ts).
 */
import type { FastifyPluginAsync } from 'fastify';
import type { operations } from '../../generated/openapi/portal.ts';
import * as bodies from '../../generated/validators/portal.bodies.js';
import * as params from '../../generated/validators/portal.params.js';
import type { Authenticator } from '../auth/authenticate.ts';
import { registerOperations } from '../http/openapi-routes.ts';
import type { Services } from '../services.ts';
import { portalHandlers } from './portal.handlers.ts';

interface PortalOptions {
  services: Pick<Services, 'portal'>;
  authenticatePortal: Authenticator;
  baseUrl: string;
}

export const portalPlugin: FastifyPluginAsync<PortalOptions> = async (scope, { services, authenticatePortal, baseUrl }) => {
  registerOperations<operations>(scope, 'portal', { params, bodies }, portalHandlers(services, baseUrl), { portal: authenticatePortal });
};
