/**
 * The catalog area: the product operations of openapi/rest-v1.yaml and all of openapi/rest-v2.yaml,
 * in their own scope with bearer authentication and the REST plumbing (negotiation, multipart).
 */
import type { FastifyPluginAsync } from 'fastify';
import type { ProductsOperations } from '../../generated/openapi/rest-v1.ts';
import type { operations as V2 } from '../../generated/openapi/rest-v2.ts';
import * as v1Bodies from '../../generated/validators/rest-v1.bodies.js';
import * as v1Params from '../../generated/validators/rest-v1.params.js';
import * as v2Bodies from '../../generated/validators/rest-v2.bodies.js';
import * as v2Params from '../../generated/validators/rest-v2.params.js';
import { bearerAuthentication } from '../auth/bearer-hook.ts';
import { registerOperations } from '../http/openapi-routes.ts';
import { registerRestPlumbing } from '../http/rest-area.ts';
import type { AreaOptions } from '../services.ts';
import { productV1Handlers } from './products.v1.handlers.ts';
import { productV2Handlers } from './products.v2.handlers.ts';

export const catalogPlugin: FastifyPluginAsync<AreaOptions<'products'>> = async (scope, { services, authenticate }) => {
  await registerRestPlumbing(scope);
  scope.addHook('onRequest', bearerAuthentication(authenticate));
  registerOperations<ProductsOperations>(scope, 'rest-v1', { params: v1Params, bodies: v1Bodies }, productV1Handlers(services));
  registerOperations<V2>(scope, 'rest-v2', { params: v2Params, bodies: v2Bodies }, productV2Handlers(services));
};
