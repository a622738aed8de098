/** The files area: file upload and download and the config document of openapi/rest-v1.yaml. */
import type { FastifyPluginAsync } from 'fastify';
import type { FilesOperations } from '../../generated/openapi/rest-v1.ts';
import * as bodies from '../../generated/validators/rest-v1.bodies.js';
import * as params from '../../generated/validators/rest-v1.params.js';
import { bearerAuthentication } from '../auth/bearer-hook.ts';
import { registerOperations } from '../http/openapi-routes.ts';
import { registerRestPlumbing } from '../http/rest-area.ts';
import type { AreaOptions } from '../services.ts';
import { fileHandlers } from './files.handlers.ts';

export const filesPlugin: FastifyPluginAsync<AreaOptions<'files' | 'configDocument'>> = async (scope, { services, authenticate }) => {
  await registerRestPlumbing(scope);
  scope.addHook('onRequest', bearerAuthentication(authenticate));
  registerOperations<FilesOperations>(scope, 'rest-v1', { params, bodies }, fileHandlers(services));
};
