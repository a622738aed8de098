import t from 'tap';
import { startServer } from '../helpers/server.ts';

t.test('the config document: ETag, Cache-Control, conditional GET, admin update', async (t) => {
  const server = await startServer(t);
  const { api } = server;
  const admin = await server.token('root', ['ADMIN']);

  const first = await api.get('/api/v1/files/config', { expect: 200 });
  t.match(first.body, { version: '1', settings: {} });
  t.equal(first.headers.get('etag'), '"1"');
  t.equal(first.headers.get('cache-control'), 'max-age=300');

  for (const tag of ['"1"', 'W/"1"', '"0", "1"', '"a,b", W/"1"', '*']) {
    const r = await api.get('/api/v1/files/config', { headers: { 'if-none-match': tag }, expect: 304 });
    t.equal(r.text, '', `${tag}: no body`);
    t.equal(r.headers.get('etag'), '"1"');
    t.equal(r.headers.get('cache-control'), 'max-age=300');
  }
  for (const tag of ['"2"', 'W/"11"', '1', 'garbage']) {
    await api.get('/api/v1/files/config', { headers: { 'if-none-match': tag }, expect: 200 });
  }

  const settings = { theme: 'dark', limits: { uploads: 10 }, flags: [true, false] };
  const updated = await api.put('/api/v1/files/config', { body: { settings }, token: admin, expect: 200 });
  t.match(updated.body, { version: '2', settings });
  t.equal(updated.headers.get('etag'), '"2"');
  const stale = await api.get('/api/v1/files/config', { headers: { 'if-none-match': '"1"' }, expect: 200 });
  t.same(stale.body.settings, settings, 'the old tag no longer matches');
  t.equal(stale.headers.get('etag'), '"2"');

  await api.put('/api/v1/files/config', { body: { settings }, expect: 401 });
  await api.put('/api/v1/files/config', { body: { settings }, token: await server.token('alice'), expect: 403 });
  await api.put('/api/v1/files/config', { body: { settings: 'dark' }, token: admin, expect: 400 });
  await api.put('/api/v1/files/config', { body: { settings: { bad: 'nul\u0000' } }, token: admin, expect: 400 });
  await api.put('/api/v1/files/config', { raw: 'k,v', headers: { 'content-type': 'text/csv' }, token: admin, expect: 415 });
  await api.put('/api/v1/files/config', {
    raw: JSON.stringify({ settings: { x: 'y'.repeat(1_100_000) } }),
    headers: { 'content-type': 'application/json' },
    token: admin,
    expect: 413,
  });
  t.equal((await api.get('/api/v1/files/config', { expect: 200 })).body.version, '2', 'rejected updates changed nothing');

  await api.get('/api/v1/files/config?format=xml', { expect: 406 });
  await api.get('/api/v1/files/config?format=txt', { expect: 406 });
  await api.get('/api/v1/files/config', { token: 'bad', expect: 401 });
});

t.test('config updates honour If-Match: a stale tag is 412 with the current ETag', async (t) => {
  const server = await startServer(t);
  const { api } = server;
  const admin = await server.token('root', ['ADMIN']);
  const other = await server.token('root2', ['ADMIN']);

  const mine = await api.put('/api/v1/files/config', {
    body: { settings: { theme: 'light' } },
    headers: { 'if-match': '"1"' },
    token: admin,
    expect: 200,
  });
  t.equal(mine.headers.get('etag'), '"2"');
  t.match(mine.body, { version: '2', settings: { theme: 'light' } });

  // The other administrator edited version 1 too: refused, told the current tag, nothing written.
  for (const tag of ['"1"', 'W/"2"', '2', '"1", "3"', 'garbage']) {
    const stale = await api.put('/api/v1/files/config', {
      body: { settings: { theme: 'dark' } },
      headers: { 'if-match': tag },
      token: other,
      expect: 412,
    });
    t.match(
      stale.body,
      { type: '/problems/precondition-failed', status: 412, code: 'VERSION_MISMATCH', instance: '/api/v1/files/config' },
      tag,
    );
    t.match(stale.headers.get('content-type'), /^application\/problem\+json/);
    t.equal(stale.headers.get('etag'), '"2"', `${tag}: the current tag`);
  }
  const current = await api.get('/api/v1/files/config', { expect: 200 });
  t.match(current.body, { version: '2', settings: { theme: 'light' } }, 'stale updates changed nothing');

  const retried = await api.put('/api/v1/files/config', {
    body: { settings: { theme: 'dark' } },
    headers: { 'if-match': '"1", "2"' },
    token: other,
    expect: 200,
  });
  t.equal(retried.headers.get('etag'), '"3"');
  t.equal(
    (
      await api.put('/api/v1/files/config', { body: { settings: {} }, headers: { 'if-match': '*' }, token: admin, expect: 200 })
    ).headers.get('etag'),
    '"4"',
  );
  t.equal(
    (await api.put('/api/v1/files/config', { body: { settings: {} }, token: admin, expect: 200 })).headers.get('etag'),
    '"5"',
    'no If-Match: unconditional',
  );
  await api.put('/api/v1/files/config', {
    body: { settings: {} },
    headers: { 'if-match': '"5"' },
    token: await server.token('alice'),
    expect: 403,
  });

  t.test('two administrators with the same If-Match: exactly one wins', async (t) => {
    const attempts = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        api.put('/api/v1/files/config', { body: { settings: { writer: i } }, headers: { 'if-match': '"5"' }, token: admin }),
      ),
    );
    t.same(attempts.map((r) => r.status).sort(), [200, 412, 412, 412, 412, 412]);
    const winner = attempts.find((r) => r.status === 200)!;
    const after = await api.get('/api/v1/files/config', { expect: 200 });
    t.same(after.body, winner.body, 'the stored settings are the winner’s');
    t.ok(attempts.filter((r) => r.status === 412).every((r) => r.headers.get('etag') === '"6"'));
  });
});
