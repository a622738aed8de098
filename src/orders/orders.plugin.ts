/** The orders area: the customer and order operations of openapi/rest-v1.yaml, in their own scope. */
import type { FastifyPluginAsync } from 'fastify';
import * as bodies from '../../generated/validators/rest-v1.bodies.js';
import * as params from '../../generated/validators/rest-v1.params.js';
import { bearerAuthentication } from '../auth/bearer-hook.ts';
import { registerOperations } from '../http/openapi-routes.ts';
import { registerRestPlumbing } from '../http/rest-area.ts';
import type { AreaOptions } from '../services.ts';
import { orderHandlers, type OrdersAreaOperations } from './orders.handlers.ts';

export const ordersPlugin: FastifyPluginAsync<AreaOptions<'customers' | 'orders'>> = async (scope, { services, authenticate }) => {
  await registerRestPlumbing(scope);
  scope.addHook('onRequest', bearerAuthentication(authenticate));
  registerOperations<OrdersAreaOperations>(scope, 'rest-v1', { params, bodies }, orderHandlers(services));
};
