import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import type { Database } from '../db/database.ts';
import { problem } from './problem.ts';

/** Liveness says the process serves; readiness also proves the database answers. */
export function registerHealth(app: FastifyInstance, db: Database): void {
  app.get('/healthz', { config: { skipAuth: true } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { config: { skipAuth: true } }, async (request, reply) => {
    try {
      await sql`select 1`.execute(db);
      return { status: 'ready', database: 'ok' };
    } catch (error) {
      request.log.warn({ err: error }, 'readiness check failed');
      return reply
        .code(503)
        .type('application/problem+json')
        .send(problem('service-unavailable', 'The database is not reachable', request.url));
    }
  });
}
