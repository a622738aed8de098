/**
 * Serves openapi/rest-v1.yaml and openapi/rest-v2.yaml. Each version's handler map is complete
 * (`OperationHandlers<operations>`), assembled from the areas, so an operation added to a document
 * without a handler fails to compile.
 */
import type { FastifyInstance } from 'fastify';
import * as v1Bodies from '../../generated/validators/rest-v1.bodies.js';
import * as v1Params from '../../generated/validators/rest-v1.params.js';
import * as v2Bodies from '../../generated/validators/rest-v2.bodies.js';
import * as v2Params from '../../generated/validators/rest-v2.params.js';
import type { operations as V1 } from '../../generated/openapi/rest-v1.ts';
import type { operations as V2 } from '../../generated/openapi/rest-v2.ts';
import { productV1Handlers } from '../catalog/products.v1.handlers.ts';
import { productV2Handlers } from '../catalog/products.v2.handlers.ts';
import { fileHandlers } from '../files/files.handlers.ts';
import { orderHandlers } from '../orders/orders.handlers.ts';
import type { Services } from '../services.ts';
import { loadOpenApiDocument } from './openapi-docs.ts';
import { registerOperations, type OperationHandlers } from './openapi-routes.ts';
import { registerRestArea } from './rest-area.ts';

export function registerRestApis(app: FastifyInstance, services: Services): void {
  const v1: OperationHandlers<V1> = { ...productV1Handlers(services), ...orderHandlers(services), ...fileHandlers(services) };
  const v2: OperationHandlers<V2> = productV2Handlers(services);
  registerRestArea(app, (scope) => {
    registerOperations<V1>(scope, loadOpenApiDocument('rest-v1'), { params: v1Params, bodies: v1Bodies }, v1);
    registerOperations<V2>(scope, loadOpenApiDocument('rest-v2'), { params: v2Params, bodies: v2Bodies }, v2);
  });
}
