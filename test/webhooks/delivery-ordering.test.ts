/**
 * Per-resource order, per-endpoint isolation and the per-endpoint rate, through the running worker:
 * one resource's later events wait while an earlier one is retried; a hanging endpoint does not delay
 * another's deliveries; an endpoint never gets more than WEBHOOK_RATE_PER_ENDPOINT a second.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { bearer, dataOf } from '../helpers/typed-client.ts';
import { startReceiver } from '../helpers/webhook-receiver.ts';
import { createProduct } from '../catalog/fixtures.ts';
import { envelopeOf, eventually, registerEndpoint, sendTest, startWebhookServer } from './webhook-fixtures.ts';

t.test('one resource: later events wait while an earlier one is retried', async (t) => {
  const server = await startWebhookServer(t, { WEBHOOK_RETRY_DELAYS_MS: '300' });
  let failuresLeft = 2;
  const receiver = await startReceiver(t, {
    respond: (request) => {
      const envelope = envelopeOf(request);
      if (envelope.type === 'product.created' && failuresLeft > 0) {
        failuresLeft--;
        return { status: 503 };
      }
      return { status: 200 };
    },
  });
  await registerEndpoint(server, `${receiver.origin}/o`, { events: ['product.created', 'product.updated'] });
  const product = await createProduct(server);
  for (const name of ['Second', 'Third', 'Fourth']) {
    await dataOf(
      200,
      server.v1.PATCH('/api/v1/products/{id}', {
        params: { path: { id: product.id } },
        body: { name },
        headers: bearer(server.admin_token),
      }),
    );
  }
  await receiver.waitFor(6, 10_000);
  const arrived = receiver.requests.map(envelopeOf).map((e) => [e.type, e.sequence]);
  t.same(
    arrived,
    [
      ['product.created', 1],
      ['product.created', 1],
      ['product.created', 1],
      ['product.updated', 2],
      ['product.updated', 3],
      ['product.updated', 4],
    ],
    'nothing of the product went out before its creation was delivered, and then in sequence order',
  );
});

t.test('a hanging endpoint does not delay another endpoint', async (t) => {
  const server = await startWebhookServer(t, { WEBHOOK_TIMEOUT_MS: '3000', WEBHOOK_CONCURRENCY: '10' });
  const slow = await startReceiver(t, { respond: () => 'hang' });
  const fast = await startReceiver(t);
  const slowEndpoint = await registerEndpoint(server, `${slow.origin}/slow`, { events: ['order.created'] });
  const fastEndpoint = await registerEndpoint(server, `${fast.origin}/fast`, { events: ['order.created'] });
  // More hanging deliveries than the worker has slots: the slow endpoint may take only its share.
  for (let i = 0; i < 12; i++) await sendTest(server, slowEndpoint.id);
  await slow.waitFor(2, 5000);
  const started = Date.now();
  for (let i = 0; i < 5; i++) await sendTest(server, fastEndpoint.id);
  await fast.waitFor(5, 2500);
  t.ok(Date.now() - started < 2500, `the fast endpoint got its 5 deliveries in ${Date.now() - started} ms while the slow one hung`);
  // In flight at once: the requests that arrived before the first of them could time out (3 s). On a
  // loaded machine the fast deliveries may take longer than that, and a slot freed by a time-out is
  // rightly taken by the next hanging delivery; that one is not a third slot.
  const firstAt = slow.requests[0]!.receivedAt;
  const together = slow.requests.filter((r) => r.receivedAt < firstAt + 3000).length;
  t.ok(together <= 2, `the hanging endpoint holds at most a fifth of the 10 slots (${together} in flight together)`);
});

t.test('an endpoint gets at most WEBHOOK_RATE_PER_ENDPOINT deliveries per one-second window', async (t) => {
  const server = await startWebhookServer(t, { WEBHOOK_RATE_PER_ENDPOINT: '5' });
  const receiver = await startReceiver(t);
  const endpoint = await registerEndpoint(server, `${receiver.origin}/r`, { events: ['order.created'] });
  // One delivery first, so the fifteen below travel on a connection that is already open: otherwise
  // the first one's TLS handshake delays its arrival (by 0.5 s on a loaded machine) and the gap to the
  // sixth measures the handshake, not the window. Then a pause, so the fifteen start a window afresh.
  await sendTest(server, endpoint.id);
  await receiver.waitFor(1, 10_000);
  await sleep(1100);
  for (let i = 0; i < 15; i++) await sendTest(server, endpoint.id);
  await receiver.waitFor(16, 10_000);
  const arrivals = receiver.requests.slice(1).map((r) => r.receivedAt);
  // The limit counts deliveries started per fixed one-second window of the endpoint (shared by every
  // worker): the sixth waits for the next window, and no second, however placed, holds two windows' worth.
  t.ok(arrivals[5]! - arrivals[0]! >= 800, `the sixth delivery waited for the next window (${arrivals[5]! - arrivals[0]!} ms)`);
  for (let i = 10; i < arrivals.length; i++) {
    t.ok(
      arrivals[i]! - arrivals[i - 10]! >= 1000,
      `no second holds more than 10 deliveries (${arrivals[i]! - arrivals[i - 10]!} ms for 11)`,
    );
  }
  const spread = arrivals[14]! - arrivals[0]!;
  t.ok(spread >= 1800, `15 deliveries at 5 per window span three windows (${spread} ms)`);
  await eventually(
    async () =>
      (await server.database.db.selectFrom('webhook_deliveries').select('state').where('state', '<>', 'delivered').execute()).length === 0
        ? true
        : undefined,
    5000,
    'all delivered',
  );
});
