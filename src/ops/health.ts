import { sql } from 'kysely';
import type { operations } from '../../generated/openapi/ops.ts';
import type { Database } from '../db/database.ts';
import type { OperationHandlers } from '../http/openapi-routes.ts';
import { problem } from '../http/problem.ts';

/** Liveness says the process serves; readiness also proves the database answers. */
export function healthHandlers(db: Database): Pick<OperationHandlers<operations>, 'healthz' | 'readyz'> {
  return {
    healthz: async () => ({ status: 'ok' }),
    readyz: async (request, reply) => {
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
    },
  };
}
