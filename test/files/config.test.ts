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
  await api.put('/api/v1/files/config', { raw: JSON.stringify({ settings: { x: 'y'.repeat(1_100_000) } }), headers: { 'content-type': 'application/json' }, token: admin, expect: 413 });
  t.equal((await api.get('/api/v1/files/config', { expect: 200 })).body.version, '2', 'rejected updates changed nothing');

  await api.get('/api/v1/files/config?format=xml', { expect: 406 });
  await api.get('/api/v1/files/config?format=txt', { expect: 406 });
  await api.get('/api/v1/files/config', { token: 'bad', expect: 401 });
});
