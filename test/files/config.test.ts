// test-suite: once (the config document's caching rules)
import t from 'tap';
import { sharedServer } from '../helpers/server.ts';
import { bearer, dataOf, expectStatus } from '../helpers/typed-client.ts';

type Settings = Record<string, unknown>;

t.test('the config document: ETag, Cache-Control, conditional GET, admin update', async (t) => {
  const server = await sharedServer();
  const { api, v1 } = server;
  const admin = await server.token('root', ['ADMIN']);
  const get = (headers: Record<string, string> = {}, format?: string) =>
    v1.GET('/api/v1/files/config', { params: { query: { format } }, headers });
  const put = (settings: Settings, token?: string) => v1.PUT('/api/v1/files/config', { body: { settings }, headers: bearer(token) });

  const first = await expectStatus(200, get());
  t.match(first.data, { version: '1', settings: {} });
  t.equal(first.response.headers.get('etag'), '"1"');
  t.equal(first.response.headers.get('cache-control'), 'max-age=300');

  for (const tag of ['"1"', 'W/"1"', '"0", "1"', '"a,b", W/"1"', '*']) {
    const r = await expectStatus(304, get({ 'if-none-match': tag }));
    t.equal(r.error, '', `${tag}: no body`);
    t.equal(r.response.headers.get('etag'), '"1"');
    t.equal(r.response.headers.get('cache-control'), 'max-age=300');
  }
  for (const tag of ['"2"', 'W/"11"', '1', 'garbage']) {
    await expectStatus(200, get({ 'if-none-match': tag }));
  }

  const settings = { theme: 'dark', limits: { uploads: 10 }, flags: [true, false] };
  const updated = await expectStatus(200, put(settings, admin));
  t.match(updated.data, { version: '2', settings });
  t.equal(updated.response.headers.get('etag'), '"2"');
  const stale = await expectStatus(200, get({ 'if-none-match': '"1"' }));
  t.same(stale.data!.settings, settings, 'the old tag no longer matches');
  t.equal(stale.response.headers.get('etag'), '"2"');

  await expectStatus(401, put(settings));
  await expectStatus(403, put(settings, await server.token('alice')));
  // Raw client: settings that are not an object do not compile with the typed client.
  await api.put('/api/v1/files/config', { body: { settings: 'dark' }, token: admin, expect: 400 });
  await expectStatus(400, put({ bad: 'nul\u0000' }, admin));
  // Raw client: the typed client sends JSON only, and this body is CSV.
  await api.put('/api/v1/files/config', { raw: 'k,v', headers: { 'content-type': 'text/csv' }, token: admin, expect: 415 });
  await expectStatus(413, put({ x: 'y'.repeat(1_100_000) }, admin));
  t.equal((await dataOf(200, get())).version, '2', 'rejected updates changed nothing');

  await expectStatus(406, get({}, 'xml'));
  await expectStatus(406, get({}, 'txt'));
  await expectStatus(401, get(bearer('bad')));
});

t.test('config updates honour If-Match: a stale tag is 412 with the current ETag', async (t) => {
  const server = await sharedServer();
  const { v1 } = server;
  const admin = await server.token('root', ['ADMIN']);
  const other = await server.token('root2', ['ADMIN']);
  const put = (settings: Settings, token: string, ifMatch?: string) =>
    v1.PUT('/api/v1/files/config', { body: { settings }, headers: { ...bearer(token), ...(ifMatch ? { 'if-match': ifMatch } : {}) } });

  const mine = await expectStatus(200, put({ theme: 'light' }, admin, '"1"'));
  t.equal(mine.response.headers.get('etag'), '"2"');
  t.match(mine.data, { version: '2', settings: { theme: 'light' } });

  // The other administrator edited version 1 too: refused, told the current tag, nothing written.
  for (const tag of ['"1"', 'W/"2"', '2', '"1", "3"', 'garbage']) {
    const stale = await expectStatus(412, put({ theme: 'dark' }, other, tag));
    t.match(
      stale.error,
      { type: '/problems/precondition-failed', status: 412, code: 'VERSION_MISMATCH', instance: '/api/v1/files/config' },
      tag,
    );
    t.match(stale.response.headers.get('content-type'), /^application\/problem\+json/);
    t.equal(stale.response.headers.get('etag'), '"2"', `${tag}: the current tag`);
  }
  const current = await dataOf(200, v1.GET('/api/v1/files/config'));
  t.match(current, { version: '2', settings: { theme: 'light' } }, 'stale updates changed nothing');

  const retried = await expectStatus(200, put({ theme: 'dark' }, other, '"1", "2"'));
  t.equal(retried.response.headers.get('etag'), '"3"');
  t.equal((await expectStatus(200, put({}, admin, '*'))).response.headers.get('etag'), '"4"');
  t.equal((await expectStatus(200, put({}, admin))).response.headers.get('etag'), '"5"', 'no If-Match: unconditional');
  await expectStatus(403, put({}, await server.token('alice'), '"5"'));

  t.test('two administrators with the same If-Match: exactly one wins', async (t) => {
    const attempts = await Promise.all(Array.from({ length: 6 }, (_, i) => put({ writer: i }, admin, '"5"')));
    t.same(attempts.map((r) => r.response.status).sort(), [200, 412, 412, 412, 412, 412]);
    const winner = attempts.find((r) => r.response.status === 200)!;
    const after = await dataOf(200, v1.GET('/api/v1/files/config'));
    t.same(after, winner.data, 'the stored settings are the winner’s');
    t.ok(attempts.filter((r) => r.response.status === 412).every((r) => r.response.headers.get('etag') === '"6"'));
  });
});
