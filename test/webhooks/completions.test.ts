/**
 * What recording a success costs the database (src/webhooks/delivery/completions.repository.ts):
 * a batch of successes is one statement; a clean endpoint's row is not written by it (its counters
 * are added about once a second, in one statement for all endpoints); an endpoint that had failures
 * counted is made clean and active again by the first success, its held deliveries released.
 */
import { sql } from 'kysely';
import t from 'tap';
import type { DatabaseHandle } from '../../src/db/database.ts';
import type { Executor } from '../../src/db/transaction.ts';
import { createCompletionLog } from '../../src/webhooks/delivery/completion-log.ts';
import { addEndpointCounters, recordFailure, recordSuccesses } from '../../src/webhooks/delivery/completions.repository.ts';
import { claimDeliveries, type ClaimedDelivery } from '../../src/webhooks/delivery/queue.repository.ts';
import { recordEvent, recordTestEvent } from '../../src/webhooks/outbox.repository.ts';
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

const WORKER = 'worker-test';

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
  // Claimed by WORKER (leased, one attempt counted, as the worker's claim leaves it), or held.
  const claimed = state === 'pending';
  const rows = await database.db
    .updateTable('webhook_deliveries')
    .set({
      attempts: claimed ? 1 : 0,
      state,
      leased_by: claimed ? WORKER : null,
      lease_expires_at: claimed ? new Date(Date.now() + 60_000) : null,
    })
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
  const answeredAt = new Date();
  const { counters, reactivated } = await recordSuccesses(
    database.db,
    WORKER,
    ids.map((deliveryId, i) => ({ deliveryId, attempt: 1, responseCode: 200 + (i % 5), responseTimeMs: i, answeredAt })),
  );
  t.equal(statements, 1, 'one statement for 30 successes');
  t.same(reactivated, [], 'no endpoint came back to active');
  t.same(counters, [{ endpointId: clean, successes: 30, lastSuccessAt: answeredAt }], 'the 30 successes written, to be counted');
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

  const answeredAt = new Date();
  const { reactivated } = await recordSuccesses(database.db, WORKER, [
    { deliveryId: retried!, attempt: 1, responseCode: 200, responseTimeMs: 3, answeredAt },
    { deliveryId: other!, attempt: 1, responseCode: 200, responseTimeMs: 3, answeredAt },
    { deliveryId: late!, attempt: 1, responseCode: 200, responseTimeMs: 3, answeredAt },
  ]);
  t.same(reactivated, [degraded], 'the degraded endpoint, and only it, came back to active');
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

/** A delivery of its own for `endpointId` (a test event: never fanned out to the other endpoints). */
async function single(database: DatabaseHandle, endpointId: string): Promise<string> {
  const event = {
    type: 'product.updated',
    resourceType: 'product',
    resourceId: `p-${endpointId}`,
    sequence: 1,
    object: {},
    resourcePath: null,
  } as const;
  return (await recordTestEvent(database.db, endpointId, event)).deliveryId;
}

/** Claims what is due for `workerId`, as a worker's claim does. */
async function claim(database: DatabaseHandle, workerId: string): Promise<ClaimedDelivery[]> {
  return claimDeliveries(database.db, { workerId, limit: 10, leaseMs: 60_000, ratePerEndpoint: 100, perEndpoint: 10, skipEndpoints: [] });
}

/** Ends every lease now, as the clock would once the worker holding it stopped answering. */
async function expireLeases(database: DatabaseHandle): Promise<void> {
  await sql`update webhook_deliveries set lease_expires_at = now() - interval '1 second' where lease_expires_at is not null`.execute(
    database.db,
  );
}

function completionLog(db: Executor, workerId: string, errors: string[] = []) {
  return createCompletionLog({
    db,
    workerId,
    // Written only when flushed or closed by the test: nothing here waits for a timer.
    flushMs: 60_000,
    maxBatch: 200,
    countersMs: 60_000,
    log: { error: (_details, message) => void errors.push(message) },
    onWritten: () => undefined,
  });
}

async function healthOf(database: DatabaseHandle, id: string) {
  return database.db
    .selectFrom('webhook_endpoints')
    .select(['total_attempts', 'successful_deliveries', 'consecutive_failures', 'last_success_at', 'status'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
}

t.test('a success batched past its lease does not overwrite what the worker that claimed it again recorded', async (t) => {
  const database = await openTestDatabase(t);
  const failed = await endpoint(database);
  const delivered = await endpoint(database);
  const first = await single(database, failed);
  const second = await single(database, delivered);

  // Worker A sends both; its successes wait in its batch while its leases run out.
  const byA = await claim(database, 'worker-a');
  t.equal(byA.length, 2);
  const a = completionLog(database.db, 'worker-a');
  for (const d of byA) a.success({ deliveryId: d.id, attempt: d.attempt, responseCode: 200, responseTimeMs: 1, answeredAt: new Date() });
  await expireLeases(database);

  // Worker B claims both again: the first one's receiver now refuses it, the second accepts it.
  const byB = await claim(database, 'worker-b');
  t.same(
    byB.map((d) => d.attempt),
    [2, 2],
    'worker B claimed both again',
  );
  await recordFailure(database.db, {
    deliveryId: first,
    state: 'failed',
    nextAttemptAt: null,
    responseCode: 410,
    responseTimeMs: 1,
    responseBody: 'gone',
    error: null,
    degradedAfter: 50,
    disabledAfter: 500,
  });
  const b = completionLog(database.db, 'worker-b');
  b.success({ deliveryId: second, attempt: 2, responseCode: 204, responseTimeMs: 1, answeredAt: new Date() });
  await b.close();

  // A's batch is written only now.
  await a.close();

  const deliveries = await database.db
    .selectFrom('webhook_deliveries')
    .select(['id', 'state'])
    .where('id', 'in', [first, second])
    .execute();
  t.same(
    Object.fromEntries(deliveries.map((d) => [d.id, d.state])),
    { [first]: 'failed', [second]: 'delivered' },
    "worker B's outcomes stand",
  );
  const attempts = await database.db
    .selectFrom('webhook_attempts')
    .select(['delivery_id', 'status', 'attempt', 'response_code'])
    .where('delivery_id', 'in', [first, second])
    .orderBy('response_code')
    .execute();
  t.same(
    attempts,
    [
      { delivery_id: second, status: 'delivered', attempt: 2, response_code: 204 },
      { delivery_id: first, status: 'failed', attempt: 2, response_code: 410 },
    ],
    "only worker B's attempts are in the log",
  );
  t.match(
    await healthOf(database, failed),
    { total_attempts: 1, successful_deliveries: 0, consecutive_failures: 1, last_success_at: null },
    "A's late success neither cleared B's failure nor was counted",
  );
  t.match(
    await healthOf(database, delivered),
    { total_attempts: 1, successful_deliveries: 1, consecutive_failures: 0 },
    'the delivery counted once',
  );
});

t.test('a batch write that fails counts its successes once, when they are sent again and written', async (t) => {
  const database = await openTestDatabase(t);
  const id = await endpoint(database);
  const deliveryId = await single(database, id);
  let refuse = true;
  // The first write of the batch fails (a lost connection, a statement time-out): nothing is written.
  const flaky = database.db.withPlugin({
    transformQuery: ({ node }) => {
      if (refuse) {
        refuse = false;
        throw new Error('connection lost');
      }
      return node;
    },
    transformResult: async ({ result }) => result,
  });
  const errors: string[] = [];
  const log = completionLog(flaky, 'worker-a', errors);

  const [sent] = await claim(database, 'worker-a');
  log.success({ deliveryId, attempt: sent!.attempt, responseCode: 200, responseTimeMs: 1, answeredAt: new Date() });
  await log.flush();
  t.equal(errors.length, 1, 'the write failed');
  t.equal(
    (await database.db.selectFrom('webhook_deliveries').select('state').where('id', '=', deliveryId).executeTakeFirstOrThrow()).state,
    'pending',
    'still leased, not delivered',
  );

  // Its lease runs out; the same worker claims it again, sends it, and this time the write goes through.
  await expireLeases(database);
  const [again] = await claim(database, 'worker-a');
  t.equal(again?.attempt, 2);
  log.success({ deliveryId, attempt: again!.attempt, responseCode: 200, responseTimeMs: 1, answeredAt: new Date() });
  await log.close();

  t.equal(
    (await database.db.selectFrom('webhook_deliveries').select('state').where('id', '=', deliveryId).executeTakeFirstOrThrow()).state,
    'delivered',
  );
  t.match(await healthOf(database, id), { total_attempts: 1, successful_deliveries: 1 }, 'one delivery, counted once');
});
