/**
 * The endpoint state table, row by row, with scaled thresholds (degraded after more than 3
 * consecutive failures, disabled after more than 8) and delays: the counters, the held deliveries
 * of a degraded endpoint going out in sequence order once it recovers, the skipped deliveries of a
 * disabled one, the notifier, and re-enabling.
 */
import t from 'tap';
import { bearer, dataOf, errorOf } from '../helpers/typed-client.ts';
import { startReceiver } from '../helpers/webhook-receiver.ts';
import { createCompletionLog } from '../../src/webhooks/delivery/completion-log.ts';
import { claimDeliveries } from '../../src/webhooks/delivery/queue.repository.ts';
import { recordTestEvent } from '../../src/webhooks/outbox.repository.ts';
import type { DisabledEndpoint } from '../../src/webhooks/webhook-observer.ts';
import { createProduct } from '../catalog/fixtures.ts';
import {
  deliveriesOf,
  envelopeOf,
  eventually,
  registerEndpoint,
  sendTest,
  startWebhookServer,
  type WebhookServer,
} from './webhook-fixtures.ts';

async function health(server: WebhookServer, endpointId: string) {
  return dataOf(
    200,
    server.webhooks.GET('/api/webhooks/{endpointId}/health', { params: { path: { endpointId } }, headers: bearer(server.admin_token) }),
  );
}

t.test('active → degraded → active → disabled → re-enabled', async (t) => {
  const notified: DisabledEndpoint[] = [];
  const server = await startWebhookServer(
    t,
    // Retries 300 ms apart: long enough for a poll to see each counter value, even on a loaded machine.
    { WEBHOOK_DEGRADED_AFTER: '3', WEBHOOK_DISABLED_AFTER: '8', WEBHOOK_RETRY_DELAYS_MS: '300' },
    { webhookNotifier: { endpointDisabled: async (endpoint) => void notified.push(endpoint) } },
  );
  let failing = true;
  const receiver = await startReceiver(t, { respond: () => ({ status: failing ? 500 : 200 }) });
  const endpoint = await registerEndpoint(server, `${receiver.origin}/s`, { events: ['product.created', 'product.updated'] });
  const endpointId = endpoint.id;

  const fresh = await health(server, endpointId);
  t.same(
    fresh,
    {
      endpoint_id: endpointId,
      total_attempts: 0,
      successful_deliveries: 0,
      consecutive_failures: 0,
      last_success_at: null,
      last_failure_at: null,
      status: 'active',
    },
    'registration: active, all zero',
  );

  // Failures up to the threshold leave it active (row "active | fails | at most 50 | active").
  await sendTest(server, endpointId);
  const atThreshold = await eventually(
    async () => {
      const h = await health(server, endpointId);
      return h.consecutive_failures === 3 ? h : undefined;
    },
    5000,
    '3 failures',
  );
  t.equal(atThreshold.status, 'active', '3 failures, at most the threshold: still active');
  t.match(atThreshold.last_failure_at, /T/);

  const degraded = await eventually(
    async () => {
      const h = await health(server, endpointId);
      return h.status === 'degraded' ? h : undefined;
    },
    5000,
    'degraded',
  );
  t.equal(degraded.consecutive_failures, 4, 'more than 3: degraded');

  // While degraded: new events are stored and held; the scheduled retries go on.
  failing = true;
  const product = await createProduct(server);
  for (const name of ['Held 2', 'Held 3']) {
    await dataOf(
      200,
      server.v1.PATCH('/api/v1/products/{id}', {
        params: { path: { id: product.id } },
        body: { name },
        headers: bearer(server.admin_token),
      }),
    );
  }
  const held = (await deliveriesOf(server, endpointId)).filter((d) => d.state === 'held');
  t.equal(held.length, 3, 'new events of a degraded endpoint are held, not attempted');
  const beforeRecovery = receiver.requests.length;

  // The next retry succeeds: active, counter reset, last_success_at set, held events go out in order.
  failing = false;
  const recovered = await eventually(
    async () => {
      const h = await health(server, endpointId);
      return h.status === 'active' && h.successful_deliveries >= 4 ? h : undefined;
    },
    5000,
    'recovery and the held deliveries',
  );
  t.equal(recovered.consecutive_failures, 0);
  t.match(recovered.last_success_at, /T/);
  const afterRecovery = receiver.requests.slice(beforeRecovery).map(envelopeOf);
  t.same(
    afterRecovery.filter((e) => e.type.startsWith('product.')).map((e) => [e.type, e.sequence, e.data.object!.id]),
    [
      ['product.created', 1, product.id],
      ['product.updated', 2, product.id],
      ['product.updated', 3, product.id],
    ],
    'the held events went out, in sequence order',
  );
  t.ok((await deliveriesOf(server, endpointId)).every((d) => d.state === 'delivered'));

  // Failing again, beyond the disabled threshold: disabled, the consumer is notified once.
  failing = true;
  // Two failing deliveries: one has only 8 attempts, and disabling takes more than 8 failures.
  const failingEvents = [await sendTest(server, endpointId), await sendTest(server, endpointId)];
  const disabled = await eventually(
    async () => {
      const h = await health(server, endpointId);
      return h.status === 'disabled' ? h : undefined;
    },
    8000,
    'disabled',
  );
  t.ok(
    disabled.consecutive_failures >= 9,
    `more than 8: disabled (${disabled.consecutive_failures}; the other delivery's last failure may count after)`,
  );
  await eventually(async () => (notified.length ? true : undefined), 2000, 'the notifier');
  t.same(notified, [{ id: endpointId, url: endpoint.url, consecutiveFailures: 9 }]);

  // A disabled endpoint gets no new deliveries: they are recorded as skipped.
  const seen = receiver.requests.length;
  const late = await createProduct(server);
  const lateEventId = (
    await server.database.db.selectFrom('webhook_events').select('id').where('resource_id', '=', late.id).executeTakeFirstOrThrow()
  ).id;
  const after = await deliveriesOf(server, endpointId);
  const stateOf = (eventId: string) => after.find((d) => d.event_id === eventId);
  t.equal(stateOf(lateEventId)?.state, 'skipped', 'the new event is skipped');
  // The failure that disabled the endpoint was a retry, skipped; the other failing delivery was
  // waiting for its retry (skipped) unless it had used its 8 attempts first (dead), which a
  // loaded machine can make happen before the other's first attempt.
  const failingStates = failingEvents.map((id) => stateOf(id));
  t.ok(
    failingStates.some((d) => d?.state === 'skipped') &&
      failingStates.every((d) => d?.state === 'skipped' || (d?.state === 'dead' && d.attempts === 8)),
    `the waiting retries are skipped (${failingStates.map((d) => `${d?.state}/${d?.attempts}`).join(', ')})`,
  );
  t.notOk(
    after.some((d) => d.state === 'pending' || d.state === 'held'),
    'nothing waits for a disabled endpoint',
  );
  await new Promise((r) => setTimeout(r, 400));
  t.equal(receiver.requests.length, seen, 'nothing is sent to a disabled endpoint');
  t.match(
    await errorOf(
      409,
      server.webhooks.POST('/api/webhooks/{endpointId}/replay', {
        params: { path: { endpointId } },
        body: { event_id: lateEventId },
        headers: bearer(server.admin_token),
      }),
    ),
    { code: 'ENDPOINT_DISABLED' },
  );

  // Re-enabling: active with the counter reset; a skipped event can be replayed.
  failing = false;
  const enabled = await dataOf(
    200,
    server.webhooks.POST('/api/webhooks/{endpointId}/enable', { params: { path: { endpointId } }, headers: bearer(server.admin_token) }),
  );
  t.equal(enabled.status, 'active');
  t.equal((await health(server, endpointId)).consecutive_failures, 0);
  t.match(
    await errorOf(
      409,
      server.webhooks.POST('/api/webhooks/{endpointId}/enable', { params: { path: { endpointId } }, headers: bearer(server.admin_token) }),
    ),
    { code: 'ENDPOINT_NOT_DISABLED' },
  );
  await dataOf(
    202,
    server.webhooks.POST('/api/webhooks/{endpointId}/replay', {
      params: { path: { endpointId } },
      body: { event_id: lateEventId },
      headers: bearer(server.admin_token),
    }),
  );
  const replayed = await eventually(
    async () => receiver.requests.slice(seen).find((r) => r.headers['x-webhook-id'] === lateEventId),
    5000,
    'the replay',
  );
  t.equal(envelopeOf(replayed).data.object!.id, late.id);
  t.equal(notified.length, 1, 'notified once');
});

t.test('the success that brings a degraded endpoint back is in the same health answer as the state it changes', async (t) => {
  // No worker of the server's own: the test plays the worker, and writes the counters only at the end.
  const server = await startWebhookServer(t, { WEBHOOK_WORKER: 'off' });
  const db = server.database.db;
  const receiver = await startReceiver(t);
  const endpoint = await registerEndpoint(server, `${receiver.origin}/degraded`);
  await db.updateTable('webhook_endpoints').set({ status: 'degraded', consecutive_failures: 4 }).where('id', '=', endpoint.id).execute();
  const { deliveryId } = await recordTestEvent(db, endpoint.id, {
    type: 'product.updated',
    resourceType: 'product',
    resourceId: 'p-degraded',
    sequence: 1,
    object: {},
    resourcePath: null,
  });
  // A retry already scheduled (its first attempt failed): the one kind a degraded endpoint is sent.
  await db.updateTable('webhook_deliveries').set({ attempts: 1 }).where('id', '=', deliveryId).execute();
  const [claimed] = await claimDeliveries(db, {
    workerId: 'worker-test',
    limit: 1,
    leaseMs: 60_000,
    ratePerEndpoint: 100,
    perEndpoint: 1,
    skipEndpoints: [],
  });
  t.equal(claimed?.id, deliveryId, 'the retry is claimed');
  t.equal((await health(server, endpoint.id)).status, 'degraded');

  const completions = createCompletionLog({
    db,
    workerId: 'worker-test',
    flushMs: 60_000,
    maxBatch: 200,
    // The counters are not written before the close below.
    countersMs: 60_000,
    log: { error: (details) => t.fail(`unexpected error: ${JSON.stringify(details)}`) },
    onWritten: () => undefined,
  });
  completions.success({ deliveryId, attempt: claimed!.attempt, responseCode: 200, responseTimeMs: 1, answeredAt: new Date() });
  await completions.flush();

  const recovered = await health(server, endpoint.id);
  t.match(recovered, { status: 'active', consecutive_failures: 0 }, 'the success brought the endpoint back');
  t.match(recovered.last_success_at, /T/, 'and the same answer has its time');

  await completions.close();
  const counted = await health(server, endpoint.id);
  t.equal(counted.last_success_at, recovered.last_success_at, 'the counters written later keep it');
  t.equal(counted.successful_deliveries, 1);
});
