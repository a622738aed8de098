// test-suite: once (how receivers' answers are classified and scheduled)
/**
 * The outcomes table, row by row, and the whole retry schedule, through the running worker against
 * real HTTPS receivers on loopback (scaled-down delays from WEBHOOK_RETRY_DELAYS_MS).
 */
import t from 'tap';
import { bearer, dataOf } from '../helpers/typed-client.ts';
import { startDnsServer } from '../helpers/dns-server.ts';
import { startReceiver, type Reply, type ReceivedRequest } from '../helpers/webhook-receiver.ts';
import {
  attemptsOf,
  deliveriesOf,
  eventually,
  registerEndpoint,
  sendTest,
  startWebhookServer,
  type WebhookServer,
} from './webhook-fixtures.ts';

const DELAYS = [100, 150, 200, 250, 300, 350, 400];

async function settled(server: WebhookServer, endpointId: string, until: (state: string, attempts: number) => boolean) {
  return eventually(
    async () => {
      const [delivery] = await deliveriesOf(server, endpointId);
      return delivery && until(delivery.state, delivery.attempts) ? delivery : undefined;
    },
    15_000,
    'the delivery to settle',
  );
}

t.test('outcomes', async (t) => {
  const dns = await startDnsServer(t);
  // Long enough for a redirect chain of four TLS exchanges on a loaded machine; the time-out test waits it once.
  const server = await startWebhookServer(t, { DNS_RESOLVER: dns.address, WEBHOOK_TIMEOUT_MS: '3000' });

  async function run(respond: (request: ReceivedRequest, index: number) => Reply, until: (state: string, attempts: number) => boolean) {
    const receiver = await startReceiver(t, { names: ['localhost', '127.0.0.1', 'hooks.test'], respond });
    const endpoint = await registerEndpoint(server, `${receiver.origin}/in`, { events: ['order.created'] });
    const eventId = await sendTest(server, endpoint.id);
    const delivery = await settled(server, endpoint.id, until);
    return { receiver, endpoint, eventId, delivery, attempts: await attemptsOf(server, endpoint.id) };
  }

  for (const status of [200, 201, 204, 299]) {
    t.test(`${status}: delivered, stop`, async (t) => {
      const { delivery, attempts, receiver } = await run(
        () => ({ status }),
        (s) => s !== 'pending',
      );
      t.equal(delivery.state, 'delivered');
      t.equal(receiver.requests.length, 1);
      t.match(attempts, [{ status: 'delivered', response_code: status }]);
      t.notOk('next_retry_at' in attempts[0]!);
    });
  }

  t.test('301 and 302: followed up to 3 times, then delivered', async (t) => {
    dns.set('hooks.test', ['127.0.0.1']);
    const receiver = await startReceiver(t, { names: ['localhost', '127.0.0.1', 'hooks.test'] });
    const chain: Reply[] = [
      { status: 301, headers: { location: '/hop1' } },
      { status: 302, headers: { location: `https://hooks.test:${receiver.port}/hop2` } },
      { status: 302, headers: { location: '/hop3' } },
      { status: 200 },
    ];
    receiver.respond((_r, i) => chain[i] ?? { status: 500 });
    const endpoint = await registerEndpoint(server, `${receiver.origin}/in`, { events: ['order.created'] });
    await sendTest(server, endpoint.id);
    const delivery = await settled(server, endpoint.id, (s) => s !== 'pending');
    t.equal(delivery.state, 'delivered');
    t.same(
      receiver.requests.map((r) => r.url),
      ['/in', '/hop1', '/hop2', '/hop3'],
    );
    t.ok(
      receiver.requests.every((r) => r.method === 'POST' && r.rawBody === receiver.requests[0]!.rawBody),
      'each hop gets the same signed POST',
    );
    t.equal(new Set(receiver.requests.map((r) => r.headers['x-webhook-signature'])).size, 1);
    t.match(await attemptsOf(server, endpoint.id), [{ status: 'delivered', response_code: 200 }], 'one attempt');
  });

  t.test('a fourth redirect fails the attempt, with no retry', async (t) => {
    const { delivery, receiver, attempts } = await run(
      () => ({ status: 302, headers: { location: '/again' } }),
      (s) => s !== 'pending',
    );
    t.equal(delivery.state, 'failed');
    t.equal(receiver.requests.length, 4, 'the first request and 3 redirects');
    t.match(attempts, [{ status: 'failed', response_code: null, error: /^redirect_limit/ }]);
  });

  for (const status of [400, 401, 404, 410, 422]) {
    t.test(`${status}: failed at once, no retry`, async (t) => {
      const { delivery, receiver, attempts } = await run(
        () => ({ status, body: `no thanks ${status}` }),
        (s) => s !== 'pending',
      );
      t.equal(delivery.state, 'failed');
      await new Promise((r) => setTimeout(r, DELAYS[0]! * 3));
      t.equal(receiver.requests.length, 1, 'never tried again');
      t.match(attempts, [{ status: 'failed', response_code: status, response_body: `no thanks ${status}` }]);
      t.notOk('next_retry_at' in attempts[0]!);
    });
  }

  t.test('429: retried after Retry-After (seconds or a date)', async (t) => {
    const { receiver, attempts, delivery } = await run(
      (_r, i) =>
        i === 0
          ? { status: 429, headers: { 'retry-after': '1' } }
          : i === 1
            ? { status: 429, headers: { 'retry-after': new Date(Date.now() + 2000).toUTCString() } }
            : { status: 200 },
      (s) => s === 'delivered',
    );
    t.equal(delivery.attempts, 3);
    const [first, second, third] = receiver.requests.map((r) => r.receivedAt);
    t.ok(second! - first! >= 950, `waited Retry-After: 1 (${second! - first!} ms), not the 100 ms backoff`);
    t.ok(third! - second! >= 900, `waited for the Retry-After date (${third! - second!} ms)`);
    t.match(attempts, [
      { status: 'failed', response_code: 429, next_retry_at: String },
      { status: 'failed', response_code: 429 },
      { status: 'delivered' },
    ]);
    const planned = Date.parse(attempts[0]!.next_retry_at!) - Date.parse(attempts[0]!.attempted_at);
    t.ok(planned >= 900 && planned <= 1100, `next_retry_at is Retry-After later (${planned} ms)`);
  });

  for (const status of [500, 502, 503]) {
    t.test(`${status}: retried with backoff`, async (t) => {
      const { delivery, attempts } = await run(
        (_r, i) => (i < 2 ? { status } : { status: 200 }),
        (s) => s === 'delivered',
      );
      t.equal(delivery.attempts, 3);
      t.match(attempts, [
        { status: 'failed', response_code: status, next_retry_at: String },
        { status: 'failed', response_code: status },
        { status: 'delivered' },
      ]);
    });
  }

  t.test('a response time-out is retried', async (t) => {
    const { attempts, delivery } = await run(
      (_r, i) => (i === 0 ? 'hang' : { status: 200 }),
      (s) => s === 'delivered',
    );
    t.equal(delivery.attempts, 2);
    t.match(attempts[0], { status: 'failed', response_code: null, error: /^timeout/, next_retry_at: String });
    t.ok(attempts[0]!.response_time_ms >= 2900, 'after WEBHOOK_TIMEOUT_MS');
  });

  t.test('a DNS resolution failure is retried', async (t) => {
    dns.set('flaky.test', ['127.0.0.1']);
    const receiver = await startReceiver(t, { names: ['flaky.test'] });
    const endpoint = await registerEndpoint(server, `https://flaky.test:${receiver.port}/in`, { events: ['order.created'] });
    let queries = 0;
    dns.set('flaky.test', () => (queries++ === 0 ? [] : ['127.0.0.1']));
    await sendTest(server, endpoint.id);
    const delivery = await settled(server, endpoint.id, (s) => s === 'delivered');
    t.equal(delivery.attempts, 2);
    t.match(await attemptsOf(server, endpoint.id), [{ status: 'failed', response_code: null, error: /^dns/ }, { status: 'delivered' }]);
  });

  t.test('a TLS handshake failure is retried', async (t) => {
    const untrusted = await startReceiver(t, { untrusted: true });
    const endpoint = await registerEndpoint(server, `${untrusted.origin}/in`, { events: ['order.created'] });
    await sendTest(server, endpoint.id);
    await settled(server, endpoint.id, (_s, attempts) => attempts >= 2);
    const attempts = await attemptsOf(server, endpoint.id);
    t.match(attempts[0], { status: 'failed', response_code: null, error: /^tls/, next_retry_at: String });
    t.equal(untrusted.requests.length, 0, 'no request is sent over an unverified connection');
  });

  t.test('a refused connection is retried', async (t) => {
    const receiver = await startReceiver(t);
    const endpoint = await registerEndpoint(server, `${receiver.origin}/in`, { events: ['order.created'] });
    await receiver.close();
    await sendTest(server, endpoint.id);
    await settled(server, endpoint.id, (_s, attempts) => attempts >= 2);
    t.match((await attemptsOf(server, endpoint.id))[0], {
      status: 'failed',
      response_code: null,
      error: /^connection/,
      next_retry_at: String,
    });
  });
});

t.test('the whole retry schedule: 8 attempts spaced by the configured delays, then the dead-letter store', async (t) => {
  const server = await startWebhookServer(t);
  const receiver = await startReceiver(t, { respond: () => ({ status: 503 }) });
  const endpoint = await registerEndpoint(server, `${receiver.origin}/down`, { events: ['order.created'] });
  const eventId = await sendTest(server, endpoint.id);
  const delivery = await settled(server, endpoint.id, (s) => s === 'dead');
  t.equal(delivery.attempts, 8);
  t.equal(receiver.requests.length, 8, 'attempt 1 at once, then 7 retries; no ninth');
  const arrivals = receiver.requests.map((r) => r.receivedAt);
  for (let i = 1; i < 8; i++) {
    const gap = arrivals[i]! - arrivals[i - 1]!;
    const base = DELAYS[i - 1]!;
    t.ok(gap >= base * 0.9 - 15 && gap <= base * 1.1 + 250, `retry ${i + 1} came ${gap} ms after attempt ${i} (delay ${base} ms ±10 %)`);
  }
  const attempts = await attemptsOf(server, endpoint.id);
  t.equal(attempts.length, 8);
  t.ok(
    attempts.slice(0, 7).every((a) => a.next_retry_at),
    'each retried failure names its next attempt',
  );
  t.notOk('next_retry_at' in attempts[7]!, 'the last one does not');
  const dead = await dataOf(
    200,
    server.webhooks.GET('/api/webhooks/dead-letters', {
      params: { query: { endpoint_id: endpoint.id } },
      headers: bearer(server.admin_token),
    }),
  );
  t.match(dead.data, [{ endpoint_id: endpoint.id, event_id: eventId, event_type: 'order.created', attempts: 8, last_error: null }]);
  await new Promise((r) => setTimeout(r, 600));
  t.equal(receiver.requests.length, 8, 'a dead letter is not tried again');

  receiver.respond(() => ({ status: 200 }));
  await dataOf(
    202,
    server.webhooks.POST('/api/webhooks/{endpointId}/replay', {
      params: { path: { endpointId: endpoint.id } },
      body: { event_id: eventId },
      headers: bearer(server.admin_token),
    }),
  );
  await receiver.waitFor(9);
  t.equal(receiver.requests[8]!.headers['x-webhook-id'], eventId, 'a dead letter can be replayed');
});
