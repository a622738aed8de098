// test-suite: once (parameter validation)
/**
 * Limits (default 20, maximum 100, larger is a 400, not clamped) and bad parameter values: every one
 * is a 400 Problem naming the parameter, never a 500.
 */
import t from 'tap';
import type { operations } from '../../generated/openapi/posts.ts';
import { sharedServer } from '../helpers/server.ts';
import { dataOf, errorOf } from '../helpers/typed-client.ts';
import { offsetPage, standardPage } from './page-forms.ts';
import { ORIGIN_MICROS, Seed } from './seed.ts';

t.test('limits and parameter validation', async (t) => {
  const server = await sharedServer();
  const { api } = server;
  const posts = (query: NonNullable<operations['listPosts']['parameters']['query']> = {}) =>
    dataOf(200, server.posts.GET('/posts', { params: { query } }));
  const feed = (query: NonNullable<operations['getFeed']['parameters']['query']> = {}) => server.posts.GET('/feed', { params: { query } });
  const seed = new Seed(server.database.db);
  await seed.users('alice');
  await seed.posts(Array.from({ length: 130 }, (_, i) => ({ author: 'alice', createdAtMicros: ORIGIN_MICROS + BigInt(i) * 1000n })));

  t.test('default 20 and maximum 100 in every form', async (t) => {
    t.equal((await posts()).data.length, 20);
    t.equal((await posts({ limit: 100 })).data.length, 100);
    t.equal(offsetPage(await posts({ offset: 0 })).pagination.limit, 20);
    t.equal((await posts({ offset: 0, limit: 100 })).data.length, 100);
    t.equal((await posts({ created_before: '2030-01-01T00:00:00Z' })).data.length, 20);
    t.equal((await posts({ created_before: '2030-01-01T00:00:00Z', limit: 100 })).data.length, 100);
    t.equal((await dataOf(200, feed())).data.length, 20);
    t.equal((await dataOf(200, feed({ limit: 100 }))).data.length, 100);
    const cursor = standardPage(await posts({ limit: 1 })).pagination.cursor!;
    t.equal((await posts({ after: cursor })).data.length, 20);
    t.equal((await posts({ after: cursor, limit: 100 })).data.length, 100);
  });

  t.test('bad values are a 400 validation Problem naming the parameter', async (t) => {
    const cursor = standardPage(await posts({ limit: 1 })).pagination.cursor!;
    // Raw client: these are query strings exactly as written (values of the wrong type, empty or
    // repeated parameters), which the typed client would not send.
    const cases: [string, string][] = [
      ['/posts?limit=101', 'query.limit'],
      ['/posts?limit=1000000', 'query.limit'],
      ['/posts?limit=0', 'query.limit'],
      ['/posts?limit=-1', 'query.limit'],
      ['/posts?limit=abc', 'query.limit'],
      ['/posts?limit=1.5', 'query.limit'],
      ['/posts?limit=', 'query.limit'],
      ['/posts?limit=1&limit=2', 'query.limit'],
      ['/posts?offset=-1', 'query.offset'],
      ['/posts?offset=abc', 'query.offset'],
      ['/posts?offset=0&limit=101', 'query.limit'],
      ['/posts?offset=99999999999', 'query.offset'],
      [`/posts?after=${cursor}&limit=101`, 'query.limit'],
      ['/posts?after=', 'query.after'],
      ['/posts?created_before=yesterday', 'query.created_before'],
      ['/posts?created_before=2024-13-01T00:00:00Z', 'query.created_before'],
      ['/posts?created_before=2024-01-01', 'query.created_before'],
      ['/posts?created_before=2024-01-01T00:00:00.1234567Z', 'query.created_before'],
      ['/posts?created_before=0000-01-01T00:00:00Z', 'query.created_before'],
      ['/posts?created_before=0001-01-01T00:00:00%2B01:00', 'query.created_before'],
      ['/posts?created_before=2024-01-01T00:00:00Z&id_before=0', 'query.id_before'],
      ['/posts?created_before=2024-01-01T00:00:00Z&id_before=-5', 'query.id_before'],
      ['/posts?created_before=2024-01-01T00:00:00Z&id_before=x', 'query.id_before'],
      ['/posts?created_before=2024-01-01T00:00:00Z&id_before=99999999999999999999', 'query.id_before'],
      ['/posts?created_before=2024-01-01T00:00:00Z&limit=101', 'query.limit'],
      ['/posts?id_before=5', 'query.id_before'],
      ['/feed?limit=101', 'query.limit'],
      ['/feed?limit=-3', 'query.limit'],
      ['/feed?limit=ten', 'query.limit'],
      ['/feed?before=', 'query.before'],
    ];
    for (const [path, field] of cases) {
      const r = await api.get(path, { expect: 400 });
      t.equal(r.headers.get('content-type'), 'application/problem+json; charset=utf-8', path);
      t.match(r.body, { status: 400, type: '/problems/validation-error' }, path);
      const fields = r.body.errors.map((e: { field: string }) => e.field);
      t.ok(fields.includes(field), `${path}: errors name ${field} (got ${fields.join(', ')})`);
    }
  });

  t.test('timestamps PostgreSQL would refuse are converted, not passed through', async (t) => {
    // +23:00 is a valid RFC 3339 offset but beyond PostgreSQL's ±15:59; it must not become a 500.
    const r = await posts({ created_before: '2024-01-01T23:00:00.050+23:00', limit: 100 });
    t.equal(r.data.length, 50, '00:00:00.050Z: the first 50 posts (1 ms apart) are older');
  });

  t.test('both feed cursors at once are a 400', async (t) => {
    const page = await dataOf(200, feed({ limit: 5 }));
    const older = await dataOf(200, feed({ limit: 5, before: page.cursors.before! }));
    const r = await errorOf(400, feed({ before: page.cursors.before!, after: older.cursors.after! }));
    t.same(r.errors?.map((e) => e.field).sort(), ['query.after', 'query.before']);
  });
});
