/**
 * Prometheus metrics (prom-client), one registry per application or worker process (tests build many
 * applications in one process; the global registry would mix them). The server and `npm run worker`
 * both serve SQL statements executed, the database pool and the webhook series (./webhook-metrics.ts);
 * the server adds HTTP requests by route pattern and status in a latency histogram (its `_count` is
 * the request count: a separate counter would only repeat it). Both also serve prom-client's default
 * process and Node.js series (CPU, memory, event-loop lag, GC, handles), collected once per process.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { DatabaseHandle } from '../db/database.ts';
import type { WebhookMetrics } from '../webhooks/webhook-observer.ts';
import { registerWebhookMetrics } from './webhook-metrics.ts';

/** What a separate worker process serves. */
export interface ProcessMetrics {
  registry: Registry;
  /** What the delivery worker reports (src/webhooks/webhook-observer.ts). */
  webhooks: WebhookMetrics;
}

/** What the server serves: the same, and its HTTP requests. */
export interface AppMetrics extends ProcessMetrics {
  /** Counts one answered request. */
  request(method: string, route: string, status: number, seconds: number): void;
}

const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

let processSeries: Registry | undefined;

/**
 * The process and Node.js series, registered once per process: they describe the process, not an
 * application (and each registration would start its own event-loop and GC observers).
 */
function processRegistry(): Registry {
  if (!processSeries) {
    processSeries = new Registry();
    collectDefaultMetrics({ register: processSeries });
  }
  return processSeries;
}

/** The database and webhook series, without HTTP: what `npm run worker` serves on METRICS_PORT. */
export function createProcessMetrics(database: DatabaseHandle): ProcessMetrics {
  // Merged: the application's own series and the process's shared ones, in one registry to scrape.
  const registry = Registry.merge([new Registry(), processRegistry()]);
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
  return { registry, webhooks: registerWebhookMetrics(registry, database) };
}

export function createMetrics(database: DatabaseHandle): AppMetrics {
  const { registry, webhooks } = createProcessMetrics(database);
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from request to response, by method, route pattern and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const byLabels = new Map<string, { observe(value: number): void }>();
  return {
    registry,
    webhooks,
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
