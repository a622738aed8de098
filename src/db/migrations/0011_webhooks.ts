import { sql, type Kysely } from 'kysely';

/**
 * Outbound webhooks (decision 75): endpoints, the transactional outbox of events, the delivery queue
 * and the log of attempts.
 *
 * - `webhook_endpoints`: a subscriber's URL, event types (`*` for all), payload form and api_version,
 *   the signing secret (kept readable: HMAC needs it) and, during a rotation, the previous secret
 *   until `previous_secret_expires_at`; status and the health counters of the endpoint state table.
 * - `webhook_events`: one row per domain event, written in the transaction of the change that causes
 *   it. `object` is the resource in the current REST v1 shape; the body each endpoint receives is
 *   rendered from it at delivery time for the endpoint's api_version and payload form. `position`
 *   orders events of equal `sequence` (an order's `order.updated` and `order.shipped`).
 * - `webhook_deliveries`: the queue, one row per (event, endpoint) fanned out in that same
 *   transaction. `state`: pending (due at `next_attempt_at`; leased to a worker while
 *   `lease_expires_at` is in the future), held (the endpoint was degraded), delivered, failed (a final
 *   4xx), dead (attempts exhausted: the dead-letter store), skipped (the endpoint was disabled).
 *   `ordering_key` (resource type and id; null for test events) keeps one resource's deliveries to
 *   one endpoint in `sequence` order.
 * - `webhook_attempts`: every HTTP attempt with its outcome, for the attempts list and health.
 *
 * A statement-level trigger sends `webhook_delivery` once per inserting statement, so workers wake on
 * commit without the writer running another statement; workers also poll, since a notification sent
 * while their LISTEN connection is down is lost.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('webhook_endpoints')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('events', sql`text[]`, (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('api_version', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) =>
      c
        .notNull()
        .defaultTo('fat')
        .check(sql`payload in ('fat', 'thin')`),
    )
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('previous_secret', 'text')
    .addColumn('previous_secret_expires_at', 'timestamptz')
    .addColumn('status', 'text', (c) =>
      c
        .notNull()
        .defaultTo('active')
        .check(sql`status in ('active', 'degraded', 'disabled')`),
    )
    .addColumn('total_attempts', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('successful_deliveries', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('consecutive_failures', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_success_at', 'timestamptz')
    .addColumn('last_failure_at', 'timestamptz')
    .addColumn('disabled_at', 'timestamptz')
    // Per-endpoint rate limit shared by every worker: deliveries started in the current one-second window.
    .addColumn('rate_window_start', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('rate_window_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('version', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  await db.schema
    .createTable('webhook_events')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('position', 'bigserial', (c) => c.notNull().unique())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('resource_type', 'text', (c) => c.notNull())
    .addColumn('resource_id', 'text', (c) => c.notNull())
    .addColumn('sequence', 'bigint')
    .addColumn('object', 'jsonb', (c) => c.notNull())
    .addColumn('previous_attributes', 'jsonb')
    // A test event (POST /api/webhooks/{id}/test) goes to one endpoint and is never fanned out.
    .addColumn('test', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`clock_timestamp()`))
    .execute();
  await sql`create index webhook_events_resource_idx on webhook_events (resource_type, resource_id, position)`.execute(db);

  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('endpoint_id', 'uuid', (c) => c.notNull().references('webhook_endpoints.id').onDelete('cascade'))
    .addColumn('event_id', 'uuid', (c) => c.notNull().references('webhook_events.id').onDelete('cascade'))
    .addColumn('event_position', 'bigint', (c) => c.notNull())
    .addColumn('ordering_key', 'text')
    .addColumn('state', 'text', (c) =>
      c
        .notNull()
        .defaultTo('pending')
        .check(sql`state in ('pending', 'held', 'delivered', 'failed', 'dead', 'skipped')`),
    )
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`clock_timestamp()`))
    .addColumn('lease_expires_at', 'timestamptz')
    .addColumn('leased_by', 'text')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`clock_timestamp()`))
    .addColumn('completed_at', 'timestamptz')
    .execute();
  // The claim scans due pending rows; the ordering check looks for an earlier open row of one key.
  await sql`create index webhook_deliveries_due_idx on webhook_deliveries (next_attempt_at) where state = 'pending'`.execute(db);
  await sql`
    create index webhook_deliveries_order_idx on webhook_deliveries (endpoint_id, ordering_key, event_position)
    where state in ('pending', 'held')`.execute(db);
  await sql`create index webhook_deliveries_endpoint_idx on webhook_deliveries (endpoint_id, state, created_at)`.execute(db);
  await sql`create index webhook_deliveries_event_idx on webhook_deliveries (event_id)`.execute(db);

  await db.schema
    .createTable('webhook_attempts')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('delivery_id', 'uuid', (c) => c.notNull().references('webhook_deliveries.id').onDelete('cascade'))
    .addColumn('endpoint_id', 'uuid', (c) => c.notNull().references('webhook_endpoints.id').onDelete('cascade'))
    .addColumn('event_id', 'uuid', (c) => c.notNull())
    .addColumn('attempt', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('delivered', 'failed')`))
    // Null when no response arrived (time-out, DNS, TLS, refused address); `error` says which.
    .addColumn('response_code', 'integer')
    .addColumn('response_time_ms', 'integer', (c) => c.notNull())
    .addColumn('response_body', 'text')
    .addColumn('error', 'text')
    .addColumn('next_retry_at', 'timestamptz')
    .addColumn('attempted_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`clock_timestamp()`))
    .execute();
  await sql`create index webhook_attempts_endpoint_idx on webhook_attempts (endpoint_id, attempted_at desc, id desc)`.execute(db);

  await sql`
    create function webhook_deliveries_inserted() returns trigger language plpgsql as $$
    begin
      -- A payload: listeners ignore empty notifications (src/db/notifications.ts).
      perform pg_notify('webhook_delivery', 'queued');
      return null;
    end $$`.execute(db);
  await sql`
    create trigger webhook_deliveries_notify after insert on webhook_deliveries
    for each statement execute function webhook_deliveries_inserted()`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop trigger if exists webhook_deliveries_notify on webhook_deliveries`.execute(db);
  await sql`drop function if exists webhook_deliveries_inserted()`.execute(db);
  await db.schema.dropTable('webhook_attempts').ifExists().execute();
  await db.schema.dropTable('webhook_deliveries').ifExists().execute();
  await db.schema.dropTable('webhook_events').ifExists().execute();
  await db.schema.dropTable('webhook_endpoints').ifExists().execute();
}
