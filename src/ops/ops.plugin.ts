/**
 * The ops area: openapi/ops.yaml (liveness, readiness and the published documents). Its scope has no
 * authentication hook: probes must answer whatever Authorization header a caller sends (a stale token
 * must not fail them), and every operation of the document is `security: []`.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { operations } from '../../generated/openapi/ops.ts';
import * as bodies from '../../generated/validators/ops.bodies.js';
import * as params from '../../generated/validators/ops.params.js';
import type { Database } from '../db/database.ts';
import { registerOperations, type OperationHandlers } from '../http/openapi-routes.ts';
import { healthHandlers } from './health.ts';
import { openApiDocHandlers } from './openapi-documents.ts';
import type { AppMetrics } from './metrics.ts';

export interface OpsOptions {
  db: Database;
  /** The public base address the published documents name as their server. */
  baseUrl: string;
  metrics: AppMetrics;
}

export const opsPlugin: FastifyPluginAsync<OpsOptions> = async (scope, { db, baseUrl, metrics }) => {
  const handlers: OperationHandlers<operations> = {
    ...healthHandlers(db),
    ...openApiDocHandlers(baseUrl),
    metrics: async (_request, reply) => {
      const text = await metrics.registry.metrics();
      return reply.type(metrics.registry.contentType).send(text);
    },
  };
  registerOperations<operations>(scope, 'ops', { params, bodies }, handlers);
};
