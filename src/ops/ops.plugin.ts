/**
 * The ops area: openapi/ops.yaml (liveness, readiness, the published documents and the metrics). Its
 * scope has no authentication hook: probes must answer whatever Authorization header a caller sends
 * (a stale token must not fail them), and they are `security: []`. /metrics is the one secured
 * operation, and its credential is the operator's METRICS_TOKEN, not a user's.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { operations } from '../../generated/openapi/ops.ts';
import * as bodies from '../../generated/validators/ops.bodies.js';
import * as params from '../../generated/validators/ops.params.js';
import type { Database } from '../db/database.ts';
import { notFound } from '../errors.ts';
import { registerOperations, type OperationHandlers } from '../http/openapi-routes.ts';
import { healthHandlers } from './health.ts';
import { openApiDocHandlers } from './openapi-documents.ts';
import type { AppMetrics } from './metrics.ts';

interface OpsOptions {
  db: Database;
  /** The public base address the published documents name as their server. */
  baseUrl: string;
  metrics: AppMetrics;
  /** METRICS_TOKEN: the bearer token /metrics requires here; null: /metrics is not served here. */
  metricsToken: string | null;
}

const digest = (value: string) => createHash('sha256').update(value).digest();

/** Whether the request carries `Authorization: Bearer <token>`, compared in constant time. */
function carriesToken(request: FastifyRequest, token: string): boolean {
  const match = /^Bearer (\S+)$/i.exec(request.headers.authorization ?? '');
  return !!match && timingSafeEqual(digest(match[1]!), digest(token));
}

export const opsPlugin: FastifyPluginAsync<OpsOptions> = async (scope, { db, baseUrl, metrics, metricsToken }) => {
  const handlers: OperationHandlers<operations> = {
    ...healthHandlers(db),
    ...openApiDocHandlers(baseUrl),
    metrics: async (_request, reply) => {
      if (metricsToken === null)
        throw notFound('Metrics are not served on this port (set METRICS_TOKEN, or METRICS_PORT for an internal listener)');
      const text = await metrics.registry.metrics();
      return reply.type(metrics.registry.contentType).send(text);
    },
  };
  registerOperations<operations>(scope, 'ops', { params, bodies }, handlers, {
    // Without a METRICS_TOKEN there is no credential to check, and the handler answers 404.
    isAuthenticated: (request) => metricsToken === null || carriesToken(request, metricsToken),
  });
};
