/**
 * The webhook series of a registry, for the server's and the separate worker's alike: what a delivery
 * worker reports (attempt counters, latencies: this process's own) and the queue as the database
 * holds it (deliveries by state, endpoints by status, the lag: read with one query each when scraped,
 * so every process reports the same shared queue and nothing is cached).
 */
import { sql } from 'kysely';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { DatabaseHandle } from '../db/database.ts';
import type { AttemptOutcome, WebhookMetrics } from '../webhooks/webhook-observer.ts';

const DELIVERY_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 3600, 86_400];

export function registerWebhookMetrics(registry: Registry, database: DatabaseHandle): WebhookMetrics {
  registerQueueGauges(registry, database);
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
  return {
    attempt: (outcome: AttemptOutcome) => attempts.inc({ outcome }),
    acknowledged: (seconds) => acknowledged.observe(seconds),
    firstAttempt: (seconds) => firstAttempt.observe(seconds),
  };
}

function registerQueueGauges(registry: Registry, database: DatabaseHandle): void {
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
  new Gauge({
    name: 'webhook_queue_lag_seconds',
    help: 'Age of the oldest due pending delivery (now minus its next_attempt_at); 0 when none is due',
    registers: [registry],
    async collect() {
      // min() over the partial index webhook_deliveries_due_idx (next_attempt_at where state =
      // 'pending', migration 0011): one index probe however long the queue is. A delivery whose
      // attempt is in flight, or that waits behind an earlier one of its resource, is due and
      // counts: it has not been delivered yet.
      const row = await database.db
        .selectFrom('webhook_deliveries')
        .select(sql<number | null>`extract(epoch from now() - min(next_attempt_at))::float8`.as('lag'))
        .where('state', '=', 'pending')
        .where('next_attempt_at', '<=', sql<Date>`now()`)
        .executeTakeFirst();
      this.set(Number(row?.lag ?? 0));
    },
  });
}
