// test-suite: once (the series an operator reads; its worker process needs PostgreSQL)
/**
 * /metrics: the series and labels an operator's dashboards and alerts rely on, on the server and on
 * a separate `npm run worker` process (its METRICS_PORT listener).
 */
import { sql } from 'kysely';
import t from 'tap';
import { freePort } from '../../scripts/lib/free-port.ts';
import { onPostgres } from '../helpers/database.ts';
import { startReceiver, writeTestCaFile } from '../helpers/webhook-receiver.ts';
import { createProduct } from '../catalog/fixtures.ts';
import { eventually, registerEndpoint, sendTest, startWebhookServer, type WebhookServer } from './webhook-fixtures.ts';
import { startWorkerProcess } from './worker-process.ts';

const METRICS_TOKEN = 'metrics-token-of-at-least-32-characters';

function value(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

t.test('HTTP, database and webhook metrics', async (t) => {
  const server = await startWebhookServer(t, {
    WEBHOOK_DEGRADED_AFTER: '1',
    WEBHOOK_DISABLED_AFTER: '100',
    WEBHOOK_RETRY_DELAYS_MS: '50',
    METRICS_TOKEN,
  });
  const scrape = async () => {
    const response = await fetch(`${server.baseUrl}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    t.equal(response.status, 200);
    t.match(response.headers.get('content-type'), /^text\/plain; version=0\.0\.4/);
    return response.text();
  };
  const before = await scrape();
  const statementsBefore = value(before, 'db_statements_total')!;

  const ok = await startReceiver(t);
  const down = await startReceiver(t, { respond: () => ({ status: 410 }) });
  await registerEndpoint(server, `${ok.origin}/m`, { events: ['product.created'] });
  const failing = await registerEndpoint(server, `${down.origin}/m`, { events: ['order.created'] });
  const product = await createProduct(server);
  await fetch(`${server.baseUrl}/api/v1/products/${product.id}`);
  await fetch(`${server.baseUrl}/api/v1/products/not-a-uuid`);
  await fetch(`${server.baseUrl}/no/such/route`);
  await sendTest(server, failing.id);
  await ok.waitFor(1);
  await down.waitFor(1);

  // The receivers have answered; the worker records each outcome a moment later (counters in
  // memory, the queue's rows in the database): wait for every figure the assertions below read.
  const settled: Record<string, number> = {
    'webhook_attempts_total{outcome="failed"}': 1,
    'webhook_attempts_total{outcome="delivered"}': 1,
    'webhook_queue_deliveries{state="delivered"}': 1,
    'webhook_queue_deliveries{state="failed"}': 1,
    'webhook_queue_deliveries{state="pending"}': 0,
  };
  const text = await eventually(
    async () => {
      const scraped = await scrape();
      return Object.entries(settled).every(([series, expected]) => value(scraped, series) === expected) ? scraped : undefined;
    },
    10_000,
    'both attempts counted and both deliveries settled',
  );
  t.equal(
    value(text, 'http_request_duration_seconds_count{method="GET",route="/api/v1/products/:id",status="200"}'),
    1,
    'by route pattern, not raw URL',
  );
  t.equal(value(text, 'http_request_duration_seconds_count{method="GET",route="/api/v1/products/:id",status="400"}'), 1);
  t.equal(value(text, 'http_request_duration_seconds_count{method="POST",route="/api/webhooks",status="201"}'), 2);
  t.ok(
    (value(text, 'http_request_duration_seconds_count{method="GET",route="unmatched",status="404"}') ?? 0) >= 1,
    'unmatched requests share one label',
  );
  t.match(text, /http_request_duration_seconds_bucket\{le="0\.005",method="GET",route="\/api\/v1\/products\/:id",status="200"\} \d/);
  t.ok(value(text, 'db_statements_total')! > statementsBefore, 'statements are counted');
  t.equal(value(text, 'webhook_queue_deliveries{state="delivered"}'), 1);
  t.equal(value(text, 'webhook_queue_deliveries{state="failed"}'), 1);
  t.equal(value(text, 'webhook_queue_deliveries{state="pending"}'), 0);
  t.equal(value(text, 'webhook_endpoints{status="active"}'), 2, 'one failure is not more than the threshold of 1');
  t.equal(value(text, 'webhook_endpoints{status="degraded"}'), 0);
  await sendTest(server, failing.id);
  await down.waitFor(2);
  const degraded = await eventually(
    async () => {
      const scraped = await scrape();
      return value(scraped, 'webhook_endpoints{status="degraded"}') === 1 ? scraped : undefined;
    },
    5000,
    'the second failure to degrade the endpoint',
  );
  t.equal(value(degraded, 'webhook_endpoints{status="active"}'), 1);
  t.equal(value(text, 'webhook_delivery_latency_seconds_count'), 1);
  t.equal(value(text, 'webhook_first_attempt_latency_seconds_count'), 2);
  t.equal(value(text, 'webhook_queue_lag_seconds'), 0, 'nothing pending: no lag');
  t.ok(value(text, 'process_cpu_user_seconds_total')! > 0, "prom-client's process series");
  t.ok(value(text, 'nodejs_heap_size_used_bytes')! > 0, 'and its Node.js series');
  t.equal(text.match(/^# TYPE process_cpu_user_seconds_total /gm)?.length, 1, 'each once');
  if (onPostgres) t.ok(value(text, 'db_pool_connections{state="total"}')! >= 1, 'the PostgreSQL pool');
  else t.equal(value(text, 'db_pool_connections{state="total"}'), 1, 'the embedded database: one connection');
});

/** The server's /metrics with the operator's token. */
async function scrapeServer(server: WebhookServer): Promise<string> {
  const response = await fetch(`${server.baseUrl}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  if (response.status !== 200) throw new Error(`/metrics answered ${response.status}`);
  return response.text();
}

t.test('webhook_queue_lag_seconds: the age of the oldest due pending delivery, 0 when none is due', async (t) => {
  // No worker: a queued delivery stays pending, as it would behind a stopped or saturated one.
  const server = await startWebhookServer(t, { WEBHOOK_WORKER: 'off', METRICS_TOKEN });
  const lag = async () => value(await scrapeServer(server), 'webhook_queue_lag_seconds')!;
  t.equal(await lag(), 0, 'an empty queue');

  const receiver = await startReceiver(t);
  const endpoint = await registerEndpoint(server, `${receiver.origin}/lag`, { events: ['order.created'] });
  await sendTest(server, endpoint.id);
  const first = await lag();
  t.ok(first > 0, `a due delivery nobody sends: ${first} s`);
  await new Promise((resolve) => setTimeout(resolve, 300));
  const later = await lag();
  t.ok(later >= first + 0.25, `it grows while the delivery waits: ${first} s, then ${later} s`);

  const deliveries = server.database.db.updateTable('webhook_deliveries').where('endpoint_id', '=', endpoint.id);
  await deliveries.set({ next_attempt_at: sql<Date>`now() - interval '60 seconds'` }).execute();
  const minute = await lag();
  t.ok(minute >= 60 && minute < 70, `measured from next_attempt_at: ${minute} s`);
  await deliveries.set({ next_attempt_at: sql<Date>`now() + interval '60 seconds'` }).execute();
  t.equal(await lag(), 0, 'a retry scheduled for later is not due');
  await deliveries.set({ state: 'delivered', next_attempt_at: sql<Date>`now() - interval '60 seconds'` }).execute();
  t.equal(await lag(), 0, 'only pending deliveries count');
});

const needsPostgres = { skip: onPostgres ? false : 'needs PostgreSQL (TEST_DATABASE_URL): a separate worker does' };

t.test('npm run worker serves its own metrics on METRICS_PORT', needsPostgres, async (t) => {
  const server = await startWebhookServer(t, { WEBHOOK_WORKER: 'off' });
  const receiver = await startReceiver(t);
  const endpoint = await registerEndpoint(server, `${receiver.origin}/worker`, { events: ['order.created'] });
  const port = await freePort();
  const worker = startWorkerProcess(t, server, await writeTestCaFile(t), { METRICS_PORT: String(port), LOG_LEVEL: 'info' });
  await sendTest(server, endpoint.id);
  await receiver.waitFor(1, 30_000);

  const text = await eventually(
    async () => {
      const response = await fetch(`http://127.0.0.1:${port}/metrics`).catch(() => undefined);
      if (response?.status !== 200) return undefined;
      const scraped = await response.text();
      return value(scraped, 'webhook_attempts_total{outcome="delivered"}') === 1 ? scraped : undefined;
    },
    30_000,
    "the worker's delivered attempt in its /metrics",
  );
  t.equal(value(text, 'webhook_first_attempt_latency_seconds_count'), 1, "the worker's own latencies");
  t.equal(value(text, 'webhook_delivery_latency_seconds_count'), 1);
  t.ok(value(text, 'db_statements_total')! > 0, "the worker's statements");
  t.ok(value(text, 'webhook_queue_lag_seconds')! >= 0, 'the queue lag, read from the shared queue');
  t.equal(value(text, 'webhook_endpoints{status="active"}'), 1);
  t.notMatch(text, /http_request_duration_seconds/, 'no HTTP series: the worker answers no API requests');
  t.ok(value(text, 'process_resident_memory_bytes')! > 0, 'the process series');
  t.equal((await fetch(`http://127.0.0.1:${port}/readyz`)).status, 404, '/metrics alone');
  t.match(worker.stdout(), `webhook worker serving /metrics on 127.0.0.1:${port}`);
});

t.test('npm run worker without METRICS_PORT serves nothing and says so', needsPostgres, async (t) => {
  const server = await startWebhookServer(t, { WEBHOOK_WORKER: 'off' });
  const worker = startWorkerProcess(t, server, await writeTestCaFile(t), { METRICS_PORT: '', LOG_LEVEL: 'info' });
  const line = await eventually(
    async () =>
      worker
        .stdout()
        .split('\n')
        .find((l) => l.includes('serves no /metrics')),
    30_000,
    'the log line',
  );
  t.match(JSON.parse(line), { level: 30, msg: 'METRICS_PORT is unset (or 0): this webhook worker serves no /metrics' }, 'at info');
});
