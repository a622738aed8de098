// test-suite: once (the subscription API's rules)
/**
 * The subscription API's own rules, through the contract-checked client: cursor-paged lists (newest
 * first, no secrets), read, update (a new URL checked like a registration), delete, the 4xx answers
 * for bad input and unknown ids, an endpoint's own rate limit (set, changed, cleared, its range), and
 * ADMIN only.
 */
import t from 'tap';
import { startServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
let admin: string;

t.before(async () => {
  server = await startServer(t, { env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });
  admin = await server.token('subscriptions-admin', ['ADMIN']);
});

const register = (body: Record<string, unknown>) => server.api.post('/api/webhooks', { token: admin, body });

t.test('lists are cursor-paged, newest first, and never show a secret', async (t) => {
  const ids: string[] = [];
  for (let i = 0; i < 5; i++) {
    const created = await register({ url: `https://127.0.0.1:9/hook-${i}`, events: ['order.created'], description: `hook ${i}` });
    t.equal(created.status, 201);
    t.match(created.body.secret, /\S{24,}/, 'registration returns the secret once');
    ids.push(created.body.id);
  }
  const seen: string[] = [];
  let cursor: string | null = null;
  do {
    const page: { body: { data: Record<string, unknown>[]; pagination: { cursor: string | null; has_next: boolean } } } =
      await server.api.get(`/api/webhooks?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { token: admin, expect: 200 });
    t.ok(page.body.data.length <= 2);
    for (const endpoint of page.body.data) {
      t.notOk('secret' in endpoint, 'no secret in a list');
      seen.push(endpoint.id as string);
    }
    cursor = page.body.pagination.has_next ? page.body.pagination.cursor : null;
  } while (cursor);
  const ours = seen.filter((id) => ids.includes(id));
  t.same(ours, [...ids].reverse(), 'every endpoint once, newest first');
  const bad = await server.api.get('/api/webhooks?cursor=not-a-cursor', { token: admin });
  t.equal(bad.status, 400);
});

t.test('read, update and delete; unknown ids are 404', async (t) => {
  const created = await register({ url: 'https://127.0.0.1:9/crud', events: ['order.created'] });
  const id = created.body.id as string;
  const read = await server.api.get(`/api/webhooks/${id}`, { token: admin, expect: 200 });
  t.notOk('secret' in read.body);
  const updated = await server.api.patch(`/api/webhooks/${id}`, {
    token: admin,
    body: { events: ['product.updated', 'order.shipped'], description: 'renamed', payload: 'thin' },
    expect: 200,
  });
  t.same(updated.body.events, ['order.shipped', 'product.updated'], 'stored in order, once each');
  t.equal(updated.body.description, 'renamed');
  t.equal(updated.body.payload, 'thin');
  t.equal(updated.body.url, 'https://127.0.0.1:9/crud', 'fields left out are kept');
  for (const [url, why] of [
    ['http://127.0.0.1:9/plain', 'http'],
    ['https://user:pass@127.0.0.1:9/x', 'userinfo'],
    ['https://10.0.0.1/x', 'a private address'],
  ] as const) {
    const refused = await server.api.patch(`/api/webhooks/${id}`, { token: admin, body: { url } });
    t.equal(refused.status, 400, `a new URL is checked like a registration: ${why}`);
  }
  t.equal((await server.api.get(`/api/webhooks/${id}`, { token: admin })).body.url, 'https://127.0.0.1:9/crud', 'and nothing changed');
  t.equal((await server.api.patch(`/api/webhooks/${id}`, { token: admin, body: {} })).status, 400, 'an empty update');

  const unknown = '00000000-0000-4000-8000-000000000000';
  t.equal((await server.api.get(`/api/webhooks/${unknown}`, { token: admin })).status, 404);
  t.equal((await server.api.patch(`/api/webhooks/${unknown}`, { token: admin, body: { description: 'x' } })).status, 404);
  t.equal((await server.api.delete(`/api/webhooks/${unknown}`, { token: admin })).status, 404);
  t.equal((await server.api.get(`/api/webhooks/${unknown}/health`, { token: admin })).status, 404);

  await server.api.delete(`/api/webhooks/${id}`, { token: admin, expect: 204 });
  t.equal((await server.api.get(`/api/webhooks/${id}`, { token: admin })).status, 404, 'gone');
  t.equal((await server.api.delete(`/api/webhooks/${id}`, { token: admin })).status, 404, 'deleting again');
  const letters = await server.api.get(`/api/webhooks/dead-letters?endpoint_id=${unknown}`, { token: admin, expect: 200 });
  t.same(letters.body.data, [], 'dead letters filtered by an endpoint that has none');
});

t.test('registration refuses bad input with 400 naming the field', async (t) => {
  const cases: [string, Record<string, unknown>, string][] = [
    ['an unknown event type', { url: 'https://127.0.0.1:9/a', events: ['order.exploded'] }, '/events/0'],
    ['a short secret', { url: 'https://127.0.0.1:9/a', events: ['*'], secret: 'short' }, '/secret'],
    ['an unknown api_version', { url: 'https://127.0.0.1:9/a', events: ['*'], api_version: '1999-01-01' }, '/api_version'],
    ['plain http', { url: 'http://127.0.0.1:9/a', events: ['*'] }, '/url'],
    ['a user name in the URL', { url: 'https://me:pw@127.0.0.1:9/a', events: ['*'] }, '/url'],
    ['no events', { url: 'https://127.0.0.1:9/a', events: [] }, '/events'],
  ];
  for (const [name, body, field] of cases) {
    const r = await register(body);
    t.equal(r.status, 400, name);
    t.ok(
      (r.body.errors as { field: string }[] | undefined)?.some((e) => e.field.startsWith(field)),
      `${name}: names ${field} (${JSON.stringify(r.body.errors)})`,
    );
  }
});

t.test('rate_limit_per_second: set at registration, changed, cleared with null, 1 to 10000', async (t) => {
  const plain = await register({ url: 'https://127.0.0.1:9/default-rate', events: ['*'] });
  t.equal(plain.body.rate_limit_per_second, null, 'left out: null, the server default applies');
  const created = await register({ url: 'https://127.0.0.1:9/rate', events: ['*'], rate_limit_per_second: 7 });
  t.equal(created.status, 201);
  t.equal(created.body.rate_limit_per_second, 7);
  const id = created.body.id as string;
  t.equal((await server.api.get(`/api/webhooks/${id}`, { token: admin, expect: 200 })).body.rate_limit_per_second, 7, 'read back');
  const changed = await server.api.patch(`/api/webhooks/${id}`, { token: admin, body: { rate_limit_per_second: 10000 }, expect: 200 });
  t.equal(changed.body.rate_limit_per_second, 10000, 'changed, to the largest allowed');
  const kept = await server.api.patch(`/api/webhooks/${id}`, { token: admin, body: { description: 'kept' }, expect: 200 });
  t.equal(kept.body.rate_limit_per_second, 10000, 'an update without it keeps it');
  const cleared = await server.api.patch(`/api/webhooks/${id}`, { token: admin, body: { rate_limit_per_second: null }, expect: 200 });
  t.equal(cleared.body.rate_limit_per_second, null, 'null clears it');
  const lowest = await server.api.patch(`/api/webhooks/${id}`, { token: admin, body: { rate_limit_per_second: 1 }, expect: 200 });
  t.equal(lowest.body.rate_limit_per_second, 1, 'the smallest allowed');

  for (const value of [0, 10001, -5, 2.5, '5']) {
    const refusals = [
      ['registration', await register({ url: 'https://127.0.0.1:9/bad-rate', events: ['*'], rate_limit_per_second: value })],
      ['update', await server.api.patch(`/api/webhooks/${id}`, { token: admin, body: { rate_limit_per_second: value } })],
    ] as const;
    for (const [what, r] of refusals) {
      t.equal(r.status, 400, `${what} refuses ${JSON.stringify(value)}`);
      t.match(r.headers.get('content-type'), /^application\/problem\+json/, 'a Problem');
      t.ok(
        (r.body.errors as { field: string }[] | undefined)?.some((e) => e.field === '/rate_limit_per_second'),
        `${what} of ${JSON.stringify(value)} names /rate_limit_per_second (${JSON.stringify(r.body.errors)})`,
      );
    }
  }
  t.equal((await server.api.get(`/api/webhooks/${id}`, { token: admin })).body.rate_limit_per_second, 1, 'and nothing changed');
});

t.test('ADMIN only', async (t) => {
  t.equal((await server.api.get('/api/webhooks')).status, 401);
  const user = await server.token('someone', ['USER']);
  t.equal((await server.api.get('/api/webhooks', { token: user })).status, 403);
  t.equal((await server.api.post('/api/webhooks', { token: user, body: { url: 'https://127.0.0.1:9/x', events: ['*'] } })).status, 403);
});
