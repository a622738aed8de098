/**
 * The identity area. Today: openapi/admin.yaml (tenants and their SCIM tokens) for ADMIN callers
 * with a bearer JWT, in a scope of its own, so that the SCIM 2.0 endpoints can sit beside it with
 * their own token hook and error format without either scope seeing the other's authentication.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { operations } from '../../generated/openapi/admin.ts';
import * as bodies from '../../generated/validators/admin.bodies.js';
import * as params from '../../generated/validators/admin.params.js';
import { bearerAuthentication } from '../auth/bearer-hook.ts';
import { registerOperations } from '../http/openapi-routes.ts';
import type { AreaOptions } from '../services.ts';
import { adminHandlers } from './admin.handlers.ts';

export const identityPlugin: FastifyPluginAsync<AreaOptions> = async (scope, { services, authenticate }) => {
  await scope.register(async (admin) => {
    admin.addHook('onRequest', bearerAuthentication(authenticate));
    registerOperations<operations>(admin, 'admin', { params, bodies }, adminHandlers(services));
  });
};
