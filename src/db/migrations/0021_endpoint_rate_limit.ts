import { sql, type Kysely } from 'kysely';

/**
 * An endpoint's own delivery rate (issue 44): at most this many deliveries started per second,
 * counted in the endpoint's one-second window (`rate_window_start`, `rate_window_count`) shared by
 * every worker. Null: the server's `WEBHOOK_RATE_PER_ENDPOINT` applies, so changing that setting
 * still moves every endpoint that has no rate of its own. 1 to 10000: 0 would be a pause, which is
 * not what a rate is for; above 10000 a second no endpoint gets more than it would without a limit
 * (a worker sends at most a fifth of its WEBHOOK_CONCURRENCY slots to one endpoint at a time).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table webhook_endpoints add column rate_limit_per_second integer
      constraint webhook_endpoints_rate_limit_per_second_range check (rate_limit_per_second between 1 and 10000)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table webhook_endpoints drop column rate_limit_per_second`.execute(db);
}
