/**
 * The webhooks area's HTTP side: the subscriptions API of openapi/webhooks.yaml (ADMIN callers with a
 * bearer JWT, Problem Details errors). Delivery runs in the worker (src/webhooks/delivery/), not here.
 */
import type { FastifyPluginAsync } from 'fastify';
import * as bodies from '../../generated/validators/webhooks.bodies.js';
import * as params from '../../generated/validators/webhooks.params.js';
import type { Authenticator } from '../auth/authenticate.ts';
import { bearerAuthentication } from '../auth/bearer-hook.ts';
import { registerOperations } from '../http/openapi-routes.ts';
import type { AreaOptions } from '../services.ts';
import { endpointsHandlers, type ServedOperations } from './subscriptions/endpoints.handlers.ts';

interface WebhooksOptions extends AreaOptions<'webhookEndpoints'> {
  cursorSecret: Uint8Array;
  /** The portal session's reader: a portal session with the `webhooks` intent manages its tenant's endpoints. */
  authenticatePortal: Authenticator;
}

export const webhooksPlugin: FastifyPluginAsync<WebhooksOptions> = async (
  scope,
  { services, authenticate, authenticatePortal, cursorSecret },
) => {
  scope.addHook('onRequest', bearerAuthentication(authenticate));
  registerOperations<ServedOperations>(scope, 'webhooks', { params, bodies }, endpointsHandlers(services.webhookEndpoints, cursorSecret), {
    portal: authenticatePortal,
  });
};
