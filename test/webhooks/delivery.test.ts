/**
 * End to end, against real HTTPS receivers on loopback: domain changes made through REST reach a
 * registered endpoint as signed deliveries with the documented headers and envelope, in sequence
 * order per resource; rotation signs with both secrets during the overlap; test and replay deliver.
 */
import t from 'tap';
import { resolveSecretsKey } from '../../src/auth/secret.ts';
import { SecretBox } from '../../src/auth/secret-box.ts';
import { sealEndpointSecret, sealPlainSecrets } from '../../src/webhooks/endpoint-secrets.ts';
import { contractRegistry } from '../helpers/contract.ts';
import { bearer, dataOf, errorOf, expectStatus } from '../helpers/typed-client.ts';
import { startReceiver } from '../helpers/webhook-receiver.ts';
import { createProduct } from '../catalog/fixtures.ts';
import { envelopeOf, eventually, expectedSignature, registerEndpoint, signaturesOf, startWebhookServer } from './webhook-fixtures.ts';

const contract = contractRegistry();

t.test('orders and products reach the endpoint signed, documented and in order', async (t) => {
  const server = await startWebhookServer(t);
  const receiver = await startReceiver(t);
  const thinReceiver = await startReceiver(t);
  const endpoint = await registerEndpoint(server, `${receiver.origin}/hooks`);
  t.match(endpoint, { status: 'active', events: ['*'], payload: 'fat', api_version: '2026-11-24' });
  t.match(endpoint.secret, /^whsec_[A-Za-z0-9_-]{43}$/, 'a generated secret is returned once');
  const fetched = await dataOf(
    200,
    server.webhooks.GET('/api/webhooks/{endpointId}', {
      params: { path: { endpointId: endpoint.id } },
      headers: bearer(server.admin_token),
    }),
  );
  t.notOk('secret' in fetched, 'the secret is never shown again');
  const thin = await registerEndpoint(server, `${thinReceiver.origin}/thin`, { events: ['order.shipped'], payload: 'thin' });

  const product = await createProduct(server, { stockQuantity: 5 });
  const admin = server.admin_token;
  const customer = await dataOf(
    201,
    server.v1.POST('/api/v1/customers', { body: { name: 'Hook', email: 'hook@example.com' }, headers: bearer(admin) }),
  );
  const order = await dataOf(
    201,
    server.v1.POST('/api/v1/orders', {
      body: { customerId: customer.id, items: [{ productId: product.id, quantity: 2 }] },
      headers: bearer(admin),
    }),
  );
  const path = { path: { id: order.id } };
  await dataOf(200, server.v1.POST('/api/v1/orders/{id}/confirm', { params: path, headers: bearer(admin) }));
  await dataOf(
    200,
    server.v1.POST('/api/v1/orders/{id}/ship', { params: path, body: { carrier: 'UPS', trackingNumber: '1Z-42' }, headers: bearer(admin) }),
  );
  await dataOf(200, server.v1.POST('/api/v1/orders/{id}/deliver', { params: path, headers: bearer(admin) }));

  // product.created, order.created, order.updated (confirm), order.updated + order.shipped, order.updated + order.delivered
  const requests = await receiver.waitFor(7);
  const received = requests.map(envelopeOf);
  for (const [i, request] of requests.entries()) {
    const envelope = received[i]!;
    t.equal(request.method, 'POST');
    t.equal(request.url, '/hooks');
    t.equal(request.headers['content-type'], 'application/json');
    t.equal(request.headers['x-webhook-id'], envelope.id, 'X-Webhook-Id is the event id');
    t.match(request.headers['user-agent'], /^schemaforge-webhooks\//);
    const timestamp = Number(request.headers['x-webhook-timestamp']);
    t.ok(Math.abs(timestamp - Date.now() / 1000) < 30, 'X-Webhook-Timestamp is now, in seconds');
    t.same(signaturesOf(request), [expectedSignature(endpoint.secret, request)], 'one v1= signature with the secret');
    t.doesNotThrow(() => contract.validateWebhook(envelope.type, envelope), `${envelope.type} matches its documented schema`);
  }
  const orderEvents = received.filter((e) => e.type.startsWith('order.'));
  t.same(
    orderEvents.map((e) => [e.type, e.sequence]),
    [
      ['order.created', 1],
      ['order.updated', 2],
      ['order.updated', 3],
      ['order.shipped', 3],
      ['order.updated', 4],
      ['order.delivered', 4],
    ],
    'one order: every event, in sequence order',
  );
  const shipped = orderEvents.find((e) => e.type === 'order.shipped')!;
  t.match(shipped.data.object, {
    id: order.id,
    status: 'SHIPPED',
    trackingNumber: '1Z-42',
    customerId: customer.id,
    url: `${server.config.baseUrl}/api/v1/orders/${order.id}`,
  });
  t.match(shipped.data.object!.shippedAt, /^\d{4}-\d\d-\d\dT/);
  t.same(shipped.data.previous_attributes, { status: 'CONFIRMED', trackingNumber: null });
  t.match(orderEvents[2]!.data.previous_attributes, { status: 'CONFIRMED', version: 2, trackingNumber: null });
  t.match(
    received.find((e) => e.type === 'product.created'),
    { sequence: 1, data: { object: { id: product.id, sku: product.sku } } },
  );

  const [thinRequest] = await thinReceiver.waitFor(1);
  const thinEnvelope = envelopeOf(thinRequest!);
  t.same(thinEnvelope.data, {
    object_id: order.id,
    object_type: 'order',
    previous_attributes: { status: 'CONFIRMED', trackingNumber: null },
  });
  t.equal(thinEnvelope.type, 'order.shipped');
  t.doesNotThrow(() => contract.validateWebhook('order.shipped', thinEnvelope));
  t.equal(thinReceiver.requests.length, 1, 'the thin endpoint subscribed to order.shipped only');
  t.same(signaturesOf(thinRequest!), [expectedSignature(thin.secret, thinRequest!)]);

  const health = await eventually(
    async () => {
      const h = await dataOf(
        200,
        server.webhooks.GET('/api/webhooks/{endpointId}/health', { params: { path: { endpointId: endpoint.id } }, headers: bearer(admin) }),
      );
      return h.successful_deliveries === 7 ? h : undefined;
    },
    5000,
    'health to count 7 deliveries',
  );
  t.match(health, { endpoint_id: endpoint.id, total_attempts: 7, consecutive_failures: 0, last_failure_at: null, status: 'active' });
  const attempts = await dataOf(
    200,
    server.webhooks.GET('/api/webhooks/{endpointId}/attempts', {
      params: { path: { endpointId: endpoint.id }, query: { limit: 5 } },
      headers: bearer(admin),
    }),
  );
  t.equal(attempts.data.length, 5);
  t.equal(attempts.pagination.has_next, true);
  t.match(attempts.data[0], { status: 'delivered', response_code: 200 });
  const rest = await dataOf(
    200,
    server.webhooks.GET('/api/webhooks/{endpointId}/attempts', {
      params: { path: { endpointId: endpoint.id }, query: { limit: 5, cursor: attempts.pagination.cursor! } },
      headers: bearer(admin),
    }),
  );
  t.equal(rest.data.length, 2);
  t.equal(rest.pagination.has_next, false);
  t.same(
    new Set([...attempts.data, ...rest.data].map((a) => a.event_id)),
    new Set(received.map((e) => e.id)),
    'every delivery is in the attempts list once',
  );
});

t.test('signing secrets are sealed at rest; rows written before sealing are sealed at start and still sign', async (t) => {
  const server = await startWebhookServer(t);
  const receiver = await startReceiver(t);
  const secret = 'sealed-secret-of-24-chars-or-more';
  const endpoint = await registerEndpoint(server, `${receiver.origin}/sealed`, { events: ['product.created'], secret });
  t.equal(endpoint.secret, secret, 'the response shows it once, in plain text');
  const row = () =>
    server.database.db.selectFrom('webhook_endpoints').select(['secret']).where('id', '=', endpoint.id).executeTakeFirstOrThrow();
  const stored = (await row()).secret;
  t.notOk(stored.includes(secret), 'the database holds no plain secret');
  t.match(stored, /^v1\./, 'but a sealed one');

  // An endpoint as a version before sealing wrote it: plain text. It still signs, and the next start seals it.
  await server.database.db.updateTable('webhook_endpoints').set({ secret }).where('id', '=', endpoint.id).execute();
  await createProduct(server);
  const [plainSigned] = await receiver.waitFor(1);
  t.equal(signaturesOf(plainSigned!)[0], expectedSignature(secret, plainSigned!));
  t.same(
    await sealPlainSecrets(server.database.db, new SecretBox(resolveSecretsKey(server.config))),
    { sealed: 1, unopened: [] },
    'one row sealed',
  );
  t.match((await row()).secret, /^v1\./);
  await createProduct(server);
  const [, sealedSigned] = await receiver.waitFor(2);
  t.equal(signaturesOf(sealedSigned!)[0], expectedSignature(secret, sealedSigned!), 'the sealed secret signs as before');
});

t.test(
  'a secret sealed under another SECRETS_KEY: attempts fail as `signing`, nothing is sent or resealed, other endpoints go on',
  async (t) => {
    // One slot: an attempt that failed to sign and kept its slot would stop every later one.
    const server = await startWebhookServer(t, { WEBHOOK_CONCURRENCY: '1' });
    const [broken, healthy] = await Promise.all([startReceiver(t), startReceiver(t)]);
    const brokenEndpoint = await registerEndpoint(server, `${broken.origin}/hooks`);
    const healthyEndpoint = await registerEndpoint(server, `${healthy.origin}/hooks`);
    const foreign = sealEndpointSecret(
      new SecretBox('another-secrets-key-of-at-least-32-characters'),
      brokenEndpoint.id,
      'whsec_of-another-key',
    );
    const stored = () =>
      server.database.db.selectFrom('webhook_endpoints').select('secret').where('id', '=', brokenEndpoint.id).executeTakeFirstOrThrow();
    await server.database.db.updateTable('webhook_endpoints').set({ secret: foreign }).where('id', '=', brokenEndpoint.id).execute();

    // A start with this key reports it and leaves it alone (it used to seal the sealed value again).
    const box = new SecretBox(resolveSecretsKey(server.config));
    t.same(await sealPlainSecrets(server.database.db, box), { sealed: 0, unopened: [brokenEndpoint.id] });
    t.equal((await stored()).secret, foreign, 'the stored secret is unchanged: the right key still opens it');

    for (const endpoint of [brokenEndpoint, healthyEndpoint]) {
      await server.api.post(`/api/webhooks/${endpoint.id}/test`, {
        token: server.admin_token,
        body: { event_type: 'product.created' },
        expect: 202,
      });
    }
    const [delivered] = await healthy.waitFor(1, 10_000);
    t.equal(envelopeOf(delivered!).type, 'product.created', 'the healthy endpoint got its event');
    const attempt = await eventually(async () => {
      const attempts = await server.api.get(`/api/webhooks/${brokenEndpoint.id}/attempts`, { token: server.admin_token, expect: 200 });
      return attempts.body.data[0];
    });
    t.match(attempt, { error: /^signing/ }, 'the failed attempt says why');
    t.equal(broken.requests.length, 0, 'nothing unsigned or mis-signed reached it');
  },
);

t.test('rotation signs with both secrets during the overlap, then with the new one only', async (t) => {
  const server = await startWebhookServer(t);
  const receiver = await startReceiver(t);
  const endpoint = await registerEndpoint(server, `${receiver.origin}/rotate`, {
    events: ['product.created'],
    secret: 'first-secret-of-24-chars-or-more',
  });
  const endpointId = endpoint.id;
  const rotated = await dataOf(
    200,
    server.webhooks.POST('/api/webhooks/{endpointId}/rotate-secret', {
      params: { path: { endpointId } },
      body: {},
      headers: bearer(server.admin_token),
    }),
  );
  t.not(rotated.secret, endpoint.secret);
  t.ok(Date.parse(rotated.previous_secret_expires_at!) > Date.now() + 3600_000, 'the overlap lasts WEBHOOK_SECRET_OVERLAP_S (a day)');
  await createProduct(server);
  const [during] = await receiver.waitFor(1);
  t.same(
    signaturesOf(during!),
    [expectedSignature(rotated.secret, during!), expectedSignature(endpoint.secret, during!)],
    'new first, then old',
  );

  const again = await dataOf(
    200,
    server.webhooks.POST('/api/webhooks/{endpointId}/rotate-secret', {
      params: { path: { endpointId } },
      body: { secret: 'third-secret-of-24-chars-or-more', overlap_seconds: 0 },
      headers: bearer(server.admin_token),
    }),
  );
  t.equal(again.secret, 'third-secret-of-24-chars-or-more');
  await createProduct(server);
  const after = (await receiver.waitFor(2))[1]!;
  t.same(signaturesOf(after), [expectedSignature('third-secret-of-24-chars-or-more', after)], 'after the overlap: the new secret only');
});

t.test('test sends a sample event; replay sends a delivered event again with its id', async (t) => {
  const server = await startWebhookServer(t);
  const receiver = await startReceiver(t);
  const endpoint = await registerEndpoint(server, `${receiver.origin}/t`, { events: ['product.deleted'] });
  const endpointId = endpoint.id;
  const admin = bearer(server.admin_token);
  const queued = await dataOf(
    202,
    server.webhooks.POST('/api/webhooks/{endpointId}/test', {
      params: { path: { endpointId } },
      body: { event_type: 'order.shipped' },
      headers: admin,
    }),
  );
  t.match(queued, { endpoint_id: endpointId, state: 'pending' });
  const [sample] = await receiver.waitFor(1);
  const sampleEnvelope = envelopeOf(sample!);
  t.match(sampleEnvelope, {
    id: queued.event_id,
    type: 'order.shipped',
    data: { object: { status: 'SHIPPED', id: /^00000000-0000-4000-8000-/ } },
  });
  t.notOk('sequence' in sampleEnvelope, 'a sample belongs to no resource history');
  t.doesNotThrow(() => contract.validateWebhook('order.shipped', sampleEnvelope));
  t.same(signaturesOf(sample!), [expectedSignature(endpoint.secret, sample!)]);

  const product = await createProduct(server);
  await expectStatus(
    204,
    server.v1.DELETE('/api/v1/products/{id}', { params: { path: { id: product.id } }, headers: bearer(server.admin_token) }),
  );
  const deleted = envelopeOf((await receiver.waitFor(2))[1]!);
  t.match(deleted, { type: 'product.deleted', sequence: 2, data: { object: { id: product.id } } });
  t.notOk('url' in deleted.data.object!, 'a deleted product has no url to fetch');

  const replay = await dataOf(
    202,
    server.webhooks.POST('/api/webhooks/{endpointId}/replay', {
      params: { path: { endpointId } },
      body: { event_id: deleted.id },
      headers: admin,
    }),
  );
  t.equal(replay.event_id, deleted.id);
  const shown = await dataOf(
    200,
    server.webhooks.GET('/api/webhooks/{endpointId}/events/{eventId}', {
      params: { path: { endpointId, eventId: deleted.id } },
      headers: admin,
    }),
  );
  t.same(shown, { event_id: deleted.id, type: 'product.deleted', body: deleted }, 'the event as this endpoint received it');
  const elsewhere = await registerEndpoint(server, `${receiver.origin}/other`, { events: ['order.created'] });
  await errorOf(
    404,
    server.webhooks.GET('/api/webhooks/{endpointId}/events/{eventId}', {
      params: { path: { endpointId: elsewhere.id, eventId: deleted.id } },
      headers: admin,
    }),
  );
  const replayed = (await receiver.waitFor(3))[2]!;
  t.equal(replayed.headers['x-webhook-id'], deleted.id, 'the replay carries the same event id');
  t.same(envelopeOf(replayed), deleted, 'and the same envelope');

  await errorOf(
    404,
    server.webhooks.POST('/api/webhooks/{endpointId}/replay', {
      params: { path: { endpointId } },
      body: { event_id: '3f1d0f3e-1c2b-4a5d-9e8f-0a1b2c3d4e5f' },
      headers: admin,
    }),
  );
  await errorOf(
    400,
    server.webhooks.POST('/api/webhooks/{endpointId}/test', {
      params: { path: { endpointId } },
      body: { event_type: 'order.exploded' as 'order.created' },
      headers: admin,
    }),
  );
});

t.test('replay a time range: every event once, or only those whose latest delivery failed', async (t) => {
  const server = await startWebhookServer(t);
  // The receiver refuses the deletion of one product for good (a 4xx is final), takes the rest.
  let refused = '';
  const receiver = await startReceiver(t, {
    respond: (request) => (refused && request.rawBody.includes(refused) ? { status: 422 } : { status: 200 }),
  });
  const endpoint = await registerEndpoint(server, `${receiver.origin}/range`, { events: ['product.deleted'] });
  const endpointId = endpoint.id;
  const admin = bearer(server.admin_token);
  const since = new Date(Date.now() - 1000).toISOString();
  const kept = await createProduct(server);
  const lost = await createProduct(server);
  refused = lost.id;
  for (const product of [kept, lost])
    await expectStatus(204, server.v1.DELETE('/api/v1/products/{id}', { params: { path: { id: product.id } }, headers: admin }));
  await receiver.waitFor(2);
  await eventually(
    async () =>
      (
        await server.database.db
          .selectFrom('webhook_deliveries')
          .select('state')
          .where('endpoint_id', '=', endpointId)
          .where('state', '=', 'failed')
          .execute()
      ).length === 1
        ? true
        : undefined,
    10_000,
    'the refused delivery to end failed',
  );

  const range = (body: { since: string; until?: string; only_failed?: boolean }) =>
    server.webhooks.POST('/api/webhooks/{endpointId}/replay-range', { params: { path: { endpointId } }, body, headers: admin });
  refused = '';
  t.same(
    await dataOf(202, range({ since, only_failed: true })),
    { endpoint_id: endpointId, queued: 1, has_more: false, next_since: null },
    'only the failed one',
  );
  const [, , again] = await receiver.waitFor(3);
  t.match(envelopeOf(again!), { type: 'product.deleted', data: { object: { id: lost.id } } }, 'the refused deletion arrives again');

  t.match(await dataOf(202, range({ since, only_failed: true })), { queued: 0 }, 'its latest delivery succeeded: nothing failed is left');
  t.match(await dataOf(202, range({ since })), { queued: 2 }, 'the whole range: each event once, however many deliveries it had');
  const replayed = (await receiver.waitFor(5)).slice(3).map((request) => envelopeOf(request).data.object!.id);
  t.same(replayed.sort(), [kept.id, lost.id].sort());
  const later = Date.now() + 60_000;
  t.match(
    await dataOf(202, range({ since: new Date(later).toISOString(), until: new Date(later + 60_000).toISOString() })),
    { queued: 0 },
    'an empty range',
  );
  await errorOf(400, range({ since, until: since }));
  await errorOf(
    404,
    server.webhooks.POST('/api/webhooks/{endpointId}/replay-range', {
      params: { path: { endpointId: '3f1d0f3e-1c2b-4a5d-9e8f-0a1b2c3d4e5f' } },
      body: { since },
      headers: admin,
    }),
  );
});
