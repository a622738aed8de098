/**
 * Prometheus metrics (prom-client), one registry per application (tests build many applications in
 * one process; the global registry would mix them): HTTP requests by route pattern and status in a
 * latency histogram (its `_count` is the request count: a separate counter would only repeat it), SQL statements executed, the database pool, and the webhook queue. Gauges that
 * describe the database (queue depth by state, endpoints by status) are read with one query each
 * when scraped, so every instance reports the shared queue and nothing is cached.
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { DatabaseHandle } from '../db/database.ts';
import type { AttemptOutcome, WebhookMetrics } from '../webhooks/webhook-observer.ts';

export interface AppMetrics {
  registry: Registry;
  /** What the delivery worker reports (src/webhooks/webhook-observer.ts). */
  webhooks: WebhookMetrics;
  /** Counts one answered request. */
  request(method: string, route: string, status: number, seconds: number): void;
}

const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const DELIVERY_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 3600, 86_400];

export function createMetrics(database: DatabaseHandle): AppMetrics {
  const registry = new Registry();
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from request to response, by method, route pattern and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const statements = new Counter({
    name: 'db_statements_total',
    help: 'SQL statements run by this process through the query builder',
    registers: [registry],
  });
  database.observeQueries(() => statements.inc());
  new Gauge({
    name: 'db_pool_connections',
    help: 'Database connections by state (PostgreSQL pool; the embedded database has one connection)',
    labelNames: ['state'] as const,
    registers: [registry],
    collect() {
      const pool = database.pool;
      if (pool) {
        this.set({ state: 'total' }, pool.totalCount);
        this.set({ state: 'idle' }, pool.idleCount);
        this.set({ state: 'waiting' }, pool.waitingCount);
      } else this.set({ state: 'total' }, 1);
    },
  });
  new Gauge({
    name: 'webhook_queue_deliveries',
    help: 'Webhook deliveries by state (pending includes scheduled retries and leased ones)',
    labelNames: ['state'] as const,
    registers: [registry],
    async collect() {
      const rows = await database.db
        .selectFrom('webhook_deliveries')
        .select(['state', (eb) => eb.fn.countAll<number>().as('n')])
        .groupBy('state')
        .execute();
      this.reset();
      for (const state of ['pending', 'held', 'delivered', 'failed', 'dead', 'skipped']) this.set({ state }, 0);
      for (const row of rows) this.set({ state: row.state }, Number(row.n));
    },
  });
  new Gauge({
    name: 'webhook_endpoints',
    help: 'Webhook endpoints by status',
    labelNames: ['status'] as const,
    registers: [registry],
    async collect() {
      const rows = await database.db
        .selectFrom('webhook_endpoints')
        .select(['status', (eb) => eb.fn.countAll<number>().as('n')])
        .groupBy('status')
        .execute();
      for (const status of ['active', 'degraded', 'disabled']) this.set({ status }, 0);
      for (const row of rows) this.set({ status: row.status }, Number(row.n));
    },
  });
  const attempts = new Counter({
    name: 'webhook_attempts_total',
    help: 'Webhook delivery attempts by outcome (delivered, failed: final, retry: scheduled again, dead: attempts exhausted)',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const acknowledged = new Histogram({
    name: 'webhook_delivery_latency_seconds',
    help: 'From the event commit to the receiver acknowledging it (2xx)',
    buckets: DELIVERY_BUCKETS,
    registers: [registry],
  });
  const firstAttempt = new Histogram({
    name: 'webhook_first_attempt_latency_seconds',
    help: 'From the event commit to its first delivery attempt starting',
    buckets: DELIVERY_BUCKETS,
    registers: [registry],
  });
  const byLabels = new Map<string, { observe(value: number): void }>();
  return {
    registry,
    webhooks: {
      attempt: (outcome: AttemptOutcome) => attempts.inc({ outcome }),
      acknowledged: (seconds) => acknowledged.observe(seconds),
      firstAttempt: (seconds) => firstAttempt.observe(seconds),
    },
    request(method, route, status, seconds) {
      // The label child of each (method, route, status), made once: prom-client would otherwise hash
      // the label set on every call. Routes are patterns (or `unmatched`), so the map stays as small
      // as the route table.
      const key = `${method} ${status} ${route}`;
      let child = byLabels.get(key);
      if (!child) {
        child = duration.labels({ method, route, status: String(status) });
        byLabels.set(key, child);
      }
      child.observe(seconds);
    },
  };
}
