/**
 * A database that cannot be reached (stopped, restarting, a connection ended under a query) is a 503
 * the client may retry, in every transport's format, not a 500: `npm run faults -- postgres-restart`
 * shows it end to end; this pins the mapping.
 */
import t from 'tap';
import { isDatabaseUnavailable } from '../../src/errors.ts';
import { toProblem } from '../../src/http/problem.ts';

const error = (code: string, message = 'x') => Object.assign(new Error(message), { code });

t.test('what counts as the database being unreachable', async (t) => {
  for (const unreachable of [
    error('ECONNREFUSED'),
    error('57P01', 'terminating connection due to administrator command'),
    error('57P03', 'the database system is starting up'),
    error('08006'),
    new Error('Connection terminated unexpectedly'),
  ]) {
    t.ok(isDatabaseUnavailable(unreachable), unreachable.message);
    t.match(toProblem(unreachable, '/api/v1/products'), { status: 503, type: '/problems/service-unavailable' });
  }
  for (const other of [error('23505'), error('22P02'), new Error('boom'), null]) {
    t.notOk(isDatabaseUnavailable(other), String(other));
  }
  t.equal(toProblem(new Error('boom'), '/x').status, 500, 'anything else stays a 500');
});
