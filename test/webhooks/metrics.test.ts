/** /metrics: the series and labels an operator's dashboards and alerts rely on. */
import t from 'tap';
import { onPostgres } from '../helpers/database.ts';
import { startReceiver } from '../helpers/webhook-receiver.ts';
import { createProduct } from '../catalog/fixtures.ts';
import { eventually, registerEndpoint, sendTest, startWebhookServer } from './webhook-fixtures.ts';

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
  if (onPostgres) t.ok(value(text, 'db_pool_connections{state="total"}')! >= 1, 'the PostgreSQL pool');
  else t.equal(value(text, 'db_pool_connections{state="total"}'), 1, 'the embedded database: one connection');
});
