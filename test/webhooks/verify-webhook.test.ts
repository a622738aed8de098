// test-suite: once (the SDK's signature check against the signer)
/**
 * `verifyWebhook` from the SDK (generated/client/webhooks.ts) against the sender's signer and the
 * four receiver rules, and the documented receiver example (docs/examples/webhook-receiver.ts)
 * behind real HTTPS, receiving real deliveries from the running server.
 */
import https from 'node:https';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { parseEvent, verifyWebhook, type ThinWebhookEvent, type WebhookEvent } from '../../generated/client/webhooks.ts';
import { signatureHeader } from '../../src/webhooks/signature.ts';
import { createWebhookReceiver } from '../../docs/examples/webhook-receiver.ts';
import { serverCertificate, testCa } from '../helpers/webhook-receiver.ts';
import { bearer, dataOf } from '../helpers/typed-client.ts';
import { createProduct } from '../catalog/fixtures.ts';
import { eventually, registerEndpoint, startWebhookServer } from './webhook-fixtures.ts';

const SECRET = 'whsec_first-secret-for-tests-000000000000';
const NEXT = 'whsec_second-secret-for-tests-00000000000';
const NOW = 1_800_000_000_000;
const BODY = '{"id":"e1","type":"order.created","data":{"object":{"id":"o1"}},"sequence":1}';

function signed(body: string | Buffer, secrets: string[], timestamp = NOW / 1000) {
  return {
    'X-Webhook-Id': 'e1',
    'X-Webhook-Timestamp': String(timestamp),
    'X-Webhook-Signature': signatureHeader(secrets, timestamp, body.toString()),
  };
}

t.test('parseEvent types a body verified elsewhere as verifyWebhook does, checking nothing', async (t) => {
  const event = parseEvent(BODY);
  // The union narrows on type: data.object is the order.
  t.equal(event.type === 'order.created' ? event.data.object.id : undefined, 'o1');
  t.same(parseEvent(Buffer.from(BODY)), JSON.parse(BODY), 'a Buffer body');
  t.throws(() => parseEvent('not json'), SyntaxError);
});

t.test('the four verification rules', async (t) => {
  t.match(verifyWebhook(BODY, signed(BODY, [SECRET]), SECRET, { now: NOW }), {
    ok: true,
    id: 'e1',
    timestamp: NOW / 1000,
    event: { type: 'order.created' },
  });
  t.match(verifyWebhook(Buffer.from(BODY), signed(BODY, [SECRET]), [SECRET], { now: NOW }), { ok: true }, 'a Buffer body');
  const lower = Object.fromEntries(Object.entries(signed(BODY, [SECRET])).map(([k, v]) => [k.toLowerCase(), v]));
  t.match(verifyWebhook(BODY, new Headers(lower), SECRET, { now: NOW }), { ok: true }, 'a fetch Headers object');

  // 1. timestamp tolerance, at the edges
  t.match(verifyWebhook(BODY, signed(BODY, [SECRET], NOW / 1000 - 300), SECRET, { now: NOW }), { ok: true }, '300 s old: accepted');
  t.match(verifyWebhook(BODY, signed(BODY, [SECRET], NOW / 1000 - 301), SECRET, { now: NOW }), {
    ok: false,
    reason: 'timestamp_out_of_tolerance',
  });
  t.match(
    verifyWebhook(BODY, signed(BODY, [SECRET], NOW / 1000 + 301), SECRET, { now: NOW }),
    { ok: false, reason: 'timestamp_out_of_tolerance' },
    'from the future',
  );
  t.match(verifyWebhook(BODY, signed(BODY, [SECRET], NOW / 1000 - 600), SECRET, { now: NOW, toleranceSeconds: 900 }), { ok: true });
  // 2. the signature covers the raw body and the timestamp
  t.match(
    verifyWebhook(BODY.replace('o1', 'o2'), signed(BODY, [SECRET]), SECRET, { now: NOW }),
    { ok: false, reason: 'no_valid_signature' },
    'tampered body',
  );
  t.match(
    verifyWebhook(BODY, { ...signed(BODY, [SECRET]), 'X-Webhook-Timestamp': String(NOW / 1000 - 1) }, SECRET, { now: NOW }),
    { ok: false, reason: 'no_valid_signature' },
    'replayed with another timestamp',
  );
  t.match(verifyWebhook(BODY, signed(BODY, [SECRET]), NEXT, { now: NOW }), { ok: false, reason: 'no_valid_signature' }, 'wrong secret');
  // 3. several v1= values during a rotation: any one matching is enough
  t.match(verifyWebhook(BODY, signed(BODY, [NEXT, SECRET]), SECRET, { now: NOW }), { ok: true }, 'receiver still on the old secret');
  t.match(verifyWebhook(BODY, signed(BODY, [NEXT, SECRET]), NEXT, { now: NOW }), { ok: true }, 'receiver already on the new one');
  t.match(verifyWebhook(BODY, signed(BODY, [SECRET]), [NEXT, SECRET], { now: NOW }), { ok: true }, 'receiver holding two secrets');
  // Malformed input never throws.
  t.match(verifyWebhook(BODY, {}, SECRET, { now: NOW }), { ok: false, reason: 'missing_headers' });
  t.match(verifyWebhook(BODY, { ...signed(BODY, [SECRET]), 'X-Webhook-Timestamp': '12abc' }, SECRET, { now: NOW }), {
    ok: false,
    reason: 'invalid_timestamp',
  });
  t.match(verifyWebhook(BODY, { ...signed(BODY, [SECRET]), 'X-Webhook-Signature': 'v1=zz,garbage,v0=12' }, SECRET, { now: NOW }), {
    ok: false,
    reason: 'no_valid_signature',
  });
  t.match(verifyWebhook(BODY, { ...signed(BODY, [SECRET]), 'X-Webhook-Signature': 'v1=' }, SECRET, { now: NOW }), {
    ok: false,
    reason: 'no_valid_signature',
  });
  t.match(verifyWebhook('not json', signed('not json', [SECRET]), SECRET, { now: NOW }), { ok: false, reason: 'invalid_body' });
});

t.test('the documented receiver example accepts real deliveries and refuses forged ones', async (t) => {
  const server = await startWebhookServer(t);
  const received: (WebhookEvent | ThinWebhookEvent)[] = [];
  const certificate = await serverCertificate(['127.0.0.1']);
  const caCert = (await testCa()).cert;
  const handlerSecrets: string[] = [];
  const receiver = https.createServer(
    certificate,
    createWebhookReceiver(handlerSecrets, (event) => received.push(event)),
  );
  receiver.listen(0, '127.0.0.1');
  await once(receiver, 'listening');
  t.teardown(() => receiver.close());
  const endpoint = await registerEndpoint(server, `https://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhooks`, {
    events: ['product.created', 'product.updated'],
  });
  handlerSecrets.push(endpoint.secret);

  const product = await createProduct(server);
  await dataOf(
    200,
    server.v1.PATCH('/api/v1/products/{id}', {
      params: { path: { id: product.id } },
      body: { name: 'Renamed' },
      headers: bearer(server.admin_token),
    }),
  );
  await eventually(async () => (received.length === 2 ? true : undefined), 5000, 'two events');
  t.same(
    received.map((e) => [e.type, e.sequence]),
    [
      ['product.created', 1],
      ['product.updated', 2],
    ],
  );
  await eventually(
    async () => {
      const h = await dataOf(
        200,
        server.webhooks.GET('/api/webhooks/{endpointId}/health', {
          params: { path: { endpointId: endpoint.id } },
          headers: bearer(server.admin_token),
        }),
      );
      return h.successful_deliveries === 2 ? true : undefined;
    },
    5000,
    'the 204s to count as delivered',
  );

  const port = (receiver.address() as AddressInfo).port;
  const forgedStatus = await new Promise<number>((resolve, reject) => {
    const headers = signed(BODY, ['not-the-endpoint-secret-000000000'], Math.floor(Date.now() / 1000));
    const request = https.request(`https://127.0.0.1:${port}/webhooks`, { method: 'POST', headers, ca: caCert }, (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    request.on('error', reject);
    request.end(BODY);
  });
  t.equal(forgedStatus, 401, 'a request signed with another secret is refused');
  t.equal(received.length, 2);
});
