// test-suite: once (who may read /metrics)
/**
 * /metrics is the operator's: on the public port only with METRICS_TOKEN (constant-time compared,
 * no user credential will do), not at all without one; with METRICS_PORT, on a separate listener.
 */
import t from 'tap';
import { sharedServer } from '../helpers/server.ts';
import { freePort } from '../../scripts/lib/free-port.ts';

const METRICS_TOKEN = 'metrics-token-of-at-least-32-characters';

t.test('without a token /metrics is not served on the public port', async (t) => {
  const server = await sharedServer();
  const r = await server.api.get('/metrics', { expect: 404 });
  t.match(r.body, { type: '/problems/not-found', detail: /METRICS_TOKEN/ });
  const asAdmin = await server.api.get('/metrics', { token: await server.token('root', ['ADMIN']), expect: 404 });
  t.equal(asAdmin.status, 404, 'not even to an ADMIN');
});

t.test('with METRICS_TOKEN, only that token reads it', async (t) => {
  const server = await sharedServer({ env: { METRICS_TOKEN } });
  const anonymous = await server.api.get('/metrics', { expect: 401 });
  t.equal(anonymous.headers.get('www-authenticate'), 'Bearer');
  await server.api.get('/metrics', { token: 'metrics-token-of-at-least-32-characterz', expect: 401 });
  await server.api.get('/metrics', { token: await server.token('root', ['ADMIN']), expect: 401 });
  const scraped = await fetch(`${server.baseUrl}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  t.equal(scraped.status, 200);
  t.match(await scraped.text(), /^# HELP http_request_duration_seconds/m);
  await server.api.get('/healthz', { expect: 200 });
});

t.test('with METRICS_PORT, a separate listener serves it alone, without credentials', async (t) => {
  const port = await freePort();
  const server = await sharedServer({ env: { METRICS_PORT: String(port) } });
  t.equal(server.metricsPort, port);
  const scraped = await fetch(`http://127.0.0.1:${port}/metrics`);
  t.equal(scraped.status, 200);
  t.match(await scraped.text(), /^# TYPE db_statements_total counter/m);
  t.equal((await fetch(`http://127.0.0.1:${port}/healthz`)).status, 404, 'nothing else there');
  t.equal((await fetch(`http://127.0.0.1:${port}/api/v1/products`)).status, 404);
  await server.api.get('/metrics', { expect: 404 });
});
