import type { FastifyInstance } from 'fastify';
import * as bodies from '../../generated/validators/rest-v1.bodies.js';
import * as params from '../../generated/validators/rest-v1.params.js';
import { registerOperations } from '../http/openapi-routes.ts';
import { loadOpenApiDocument } from '../http/openapi-docs.ts';
import type { Services } from '../services.ts';
import type { operations } from '../../generated/openapi/rest-v1.ts';
import { productV1Handlers } from './products.v1.handlers.ts';

export function registerCatalog(app: FastifyInstance, services: Services): void {
  registerOperations<operations>(app, loadOpenApiDocument('rest-v1'), { params, bodies }, productV1Handlers(services));
}
