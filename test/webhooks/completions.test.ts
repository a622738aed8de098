/**
 * What recording a success costs the database (src/webhooks/delivery/completions.repository.ts):
 * a batch of successes is one statement; a clean endpoint's row is not written by it (its counters
 * are added about once a second, in one statement for all endpoints); an endpoint that had failures
 * counted is made clean and active again by the first success, its held deliveries released.
 */
import { sql } from 'kysely';
import t from 'tap';
import type { DatabaseHandle } from '../../src/db/database.ts';
import { addEndpointCounters, recordSuccesses } from '../../src/webhooks/delivery/completions.repository.ts';
import { recordEvent } from '../../src/webhooks/outbox.repository.ts';
import { openTestDatabase } from '../helpers/database.ts';

async function endpoint(database: DatabaseHandle, status = 'active', failures = 0): Promise<string> {
  const row = await database.db
    .insertInto('webhook_endpoints')
    .values({
      url: 'https://receiver.example/hook',
      events: ['product.updated'],
      description: null,
      api_version: '2026-11-24',
      secret: 'whsec_test',
      status,
      consecutive_failures: failures,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

async function queued(database: DatabaseHandle, endpointId: string, count: number, state = 'pending'): Promise<string[]> {
  const events: string[] = [];
  for (let i = 0; i < count; i++) {
    const id = await recordEvent(database.db, {
      type: 'product.updated',
      resourceType: 'product',
      resourceId: `p-${endpointId}-${i}-${state}`,
      sequence: 1,
      object: { id: i },
      resourcePath: null,
    });
    events.push(id);
  }
  // Claimed (one attempt counted, as the worker's claim leaves it), or held.
  const rows = await database.db
    .updateTable('webhook_deliveries')
    .set({ attempts: state === 'pending' ? 1 : 0, state })
    .where('endpoint_id', '=', endpointId)
    .where('event_id', 'in', events)
    .returning('id')
    .execute();
  return rows.map((r) => r.id);
}

/** The endpoint row's version as PostgreSQL keeps it: a write of any kind changes `xmin`. */
async function rowVersion(database: DatabaseHandle, id: string): Promise<string> {
  const { rows } = await sql<{ xmin: string }>`select xmin::text as xmin from webhook_endpoints where id = ${id}`.execute(database.db);
  return rows[0]!.xmin;
}

t.test('a batch of successes is one statement and leaves a clean endpoint row unwritten', async (t) => {
  const database = await openTestDatabase(t);
  const clean = await endpoint(database);
  const ids = await queued(database, clean, 30);
  const before = await rowVersion(database, clean);
  let statements = 0;
  database.observeQueries(() => statements++);
  const active = await recordSuccesses(
    database.db,
    ids.map((deliveryId, i) => ({ deliveryId, responseCode: 200 + (i % 5), responseTimeMs: i })),
  );
  t.equal(statements, 1, 'one statement for 30 successes');
  t.same(active, [], 'no endpoint came back to active');
  t.equal(await rowVersion(database, clean), before, 'the clean endpoint row was not written');
  const deliveries = await database.db
    .selectFrom('webhook_deliveries')
    .select(['state', 'lease_expires_at'])
    .where('endpoint_id', '=', clean)
    .execute();
  t.ok(
    deliveries.every((d) => d.state === 'delivered' && d.lease_expires_at === null),
    'every delivery delivered, its lease let go',
  );
  const attempts = await database.db
    .selectFrom('webhook_attempts')
    .select(['status', 'response_code', 'attempt'])
    .where('endpoint_id', '=', clean)
    .orderBy('response_time_ms')
    .execute();
  t.equal(attempts.length, 30, 'one attempt row each');
  t.match(attempts[7], { status: 'delivered', response_code: 202, attempt: 1 });

  const at = new Date('2026-11-28T01:00:00Z');
  await addEndpointCounters(database.db, [{ endpointId: clean, successes: 30, lastSuccessAt: at }]);
  await addEndpointCounters(database.db, [{ endpointId: clean, successes: 2, lastSuccessAt: new Date('2026-11-28T00:00:00Z') }]);
  const health = await database.db
    .selectFrom('webhook_endpoints')
    .select(['total_attempts', 'successful_deliveries', 'consecutive_failures', 'last_success_at', 'status'])
    .where('id', '=', clean)
    .executeTakeFirstOrThrow();
  t.same(
    { ...health, last_success_at: health.last_success_at?.toISOString() },
    { total_attempts: 32, successful_deliveries: 32, consecutive_failures: 0, last_success_at: at.toISOString(), status: 'active' },
    'the counters summed in memory are added; the latest success is kept',
  );
});

t.test('the first success on a degraded endpoint makes it clean and active and releases what it held', async (t) => {
  const database = await openTestDatabase(t);
  const degraded = await endpoint(database, 'degraded', 6);
  const [retried] = await queued(database, degraded, 1);
  const held = await queued(database, degraded, 3, 'held');
  const failing = await endpoint(database, 'active', 2);
  const [other] = await queued(database, failing, 1);
  const disabled = await endpoint(database, 'disabled', 20);
  const [late] = await queued(database, disabled, 1);

  const active = await recordSuccesses(database.db, [
    { deliveryId: retried!, responseCode: 200, responseTimeMs: 3 },
    { deliveryId: other!, responseCode: 200, responseTimeMs: 3 },
    { deliveryId: late!, responseCode: 200, responseTimeMs: 3 },
  ]);
  t.same(active, [degraded], 'the degraded endpoint, and only it, came back to active');
  const rows = await database.db
    .selectFrom('webhook_endpoints')
    .select(['id', 'status', 'consecutive_failures'])
    .where('id', 'in', [degraded, failing, disabled])
    .execute();
  const byId = new Map(rows.map((r) => [r.id, r]));
  t.match(byId.get(degraded), { status: 'active', consecutive_failures: 0 });
  t.match(byId.get(failing), { status: 'active', consecutive_failures: 0 }, 'the failure count starts again');
  t.match(byId.get(disabled), { status: 'disabled', consecutive_failures: 0 }, 'a disabled endpoint stays disabled');
  const released = await database.db.selectFrom('webhook_deliveries').select('state').where('id', 'in', held).execute();
  t.same(
    released.map((r) => r.state),
    ['pending', 'pending', 'pending'],
    'the held deliveries are due again',
  );
});
