/**
 * GET /posts: the form is chosen by the parameters present, each form answers in its own envelope,
 * and rules 1, 3, 4 and 5 hold for each (order, has_next, null cursors, total only for offset).
 */
import t from 'tap';
import { startServer } from '../helpers/server.ts';
import { walk } from './walk.ts';
import { newestFirst, ORIGIN_MICROS, Seed, type PostSpec, type SeededPost } from './seed.ts';

/** 45 posts; groups of three share one created_at, so the id tiebreaker decides within a group. */
function specs(): PostSpec[] {
  return Array.from({ length: 45 }, (_, i) => ({
    author: 'alice',
    createdAtMicros: ORIGIN_MICROS + BigInt(Math.floor(i / 3)) * 1_000_000n,
  }));
}

t.test('pagination forms', async (t) => {
  const server = await startServer(t);
  const { api } = server;
  const seed = new Seed(server.database.db);
  await seed.users('alice');
  const posts: SeededPost[] = await seed.posts(specs());
  const expected = [...posts].sort(newestFirst).map((p) => p.id);
  const firstIds = expected.slice(0, 20);

  t.test('no paging parameter: the standard envelope, default limit 20, newest first with id tiebreak', async (t) => {
    const r = await api.get('/posts', { expect: 200 });
    t.same(Object.keys(r.body).sort(), ['data', 'pagination']);
    t.same(Object.keys(r.body.pagination).sort(), ['cursor', 'has_next', 'limit']);
    t.equal(r.body.pagination.limit, 20);
    t.equal(r.body.pagination.has_next, true);
    t.type(r.body.pagination.cursor, 'string');
    t.same(
      r.body.data.map((p: { id: number }) => p.id),
      firstIds,
    );
    // Within a created_at group the higher id comes first.
    const [a, b] = r.body.data as { id: number; createdAt: string }[];
    t.equal(a!.createdAt, b!.createdAt);
    t.ok(a!.id > b!.id);
  });

  t.test('after: the cursor envelope continues exactly where the standard page ended', async (t) => {
    const first = await api.get('/posts?limit=20', { expect: 200 });
    const r = await api.get(`/posts?after=${first.body.pagination.cursor}&limit=20`, { expect: 200 });
    t.same(Object.keys(r.body).sort(), ['cursor', 'data', 'has_next']);
    t.same(
      r.body.data.map((p: { id: number }) => p.id),
      expected.slice(20, 40),
    );
    const last = await api.get(`/posts?after=${r.body.cursor}&limit=20`, { expect: 200 });
    t.same(
      last.body.data.map((p: { id: number }) => p.id),
      expected.slice(40),
    );
    t.equal(last.body.has_next, false);
    t.equal(last.body.cursor, null, 'rule 1: cursor is null when has_next is false');
  });

  t.test('a page that ends exactly at the last item says has_next false', async (t) => {
    const r = await api.get('/posts?limit=45', { expect: 200 });
    t.equal(r.body.data.length, 45);
    t.equal(r.body.pagination.has_next, false);
    t.equal(r.body.pagination.cursor, null);
  });

  t.test('cursor: the standard envelope follows its own pagination.cursor to the last page', async (t) => {
    const first = await api.get('/posts?limit=20', { expect: 200 });
    const second = await api.get(`/posts?cursor=${first.body.pagination.cursor}&limit=20`, { expect: 200 });
    t.same(Object.keys(second.body).sort(), ['data', 'pagination'], 'still the standard envelope, not the cursor one');
    t.same(
      second.body.data.map((p: { id: number }) => p.id),
      expected.slice(20, 40),
      'continues after page 1 instead of repeating it',
    );
    t.equal(second.body.pagination.has_next, true);
    const last = await api.get(`/posts?cursor=${second.body.pagination.cursor}&limit=20`, { expect: 200 });
    t.same(last.body, {
      data: last.body.data,
      pagination: { cursor: null, has_next: false, limit: 20 },
    });
    t.same(
      last.body.data.map((p: { id: number }) => p.id),
      expected.slice(40),
    );
    const defaultLimit = await api.get(`/posts?cursor=${first.body.pagination.cursor}`, { expect: 200 });
    t.equal(defaultLimit.body.pagination.limit, 20, 'limit defaults to 20 with a cursor too');
  });

  t.test("the two forms take each other's cursors; the parameter decides the envelope", async (t) => {
    const standard = (await api.get('/posts?limit=10', { expect: 200 })).body.pagination.cursor;
    const viaAfter = await api.get(`/posts?after=${standard}&limit=10`, { expect: 200 });
    const cursorForm = viaAfter.body.cursor;
    const asCursor = await api.get(`/posts?cursor=${cursorForm}&limit=10`, { expect: 200 });
    const asAfter = await api.get(`/posts?after=${cursorForm}&limit=10`, { expect: 200 });
    t.same(Object.keys(asCursor.body).sort(), ['data', 'pagination']);
    t.same(Object.keys(asAfter.body).sort(), ['cursor', 'data', 'has_next']);
    t.same(asCursor.body.data, asAfter.body.data, 'the same page either way');
    t.same(
      asCursor.body.data.map((p: { id: number }) => p.id),
      expected.slice(20, 30),
    );
  });

  t.test('offset: data + pagination{total, offset, limit, has_next}', async (t) => {
    const r = await api.get('/posts?offset=40&limit=10', { expect: 200 });
    t.same(r.body.pagination, { total: 45, offset: 40, limit: 10, has_next: false });
    t.same(
      r.body.data.map((p: { id: number }) => p.id),
      expected.slice(40),
    );
    const mid = await api.get('/posts?offset=10&limit=10', { expect: 200 });
    t.same(mid.body.pagination, { total: 45, offset: 10, limit: 10, has_next: true });
    t.same(
      mid.body.data.map((p: { id: number }) => p.id),
      expected.slice(10, 20),
    );
    const past = await api.get('/posts?offset=500', { expect: 200 });
    t.same(past.body, { data: [], pagination: { total: 45, offset: 500, limit: 20, has_next: false } });
  });

  t.test('keyset: strictly before (created_before, id_before), next carries exact values', async (t) => {
    const pivot = [...posts].sort(newestFirst)[4]!; // second in its created_at group of three
    const r = await api.get(`/posts?created_before=${pivot.createdAt}&id_before=${pivot.id}&limit=5`, { expect: 200 });
    t.same(Object.keys(r.body).sort(), ['data', 'has_next', 'next']);
    t.same(
      r.body.data.map((p: { id: number }) => p.id),
      expected.slice(5, 10),
    );
    const last = [...posts].sort(newestFirst)[9]!;
    t.same(r.body.next, { created_before: last.createdAt, id_before: last.id });
    t.equal(r.body.has_next, true);

    const onlyTime = await api.get(`/posts?created_before=${encodeURIComponent(pivot.createdAt)}&limit=100`, { expect: 200 });
    t.same(
      onlyTime.body.data.map((p: { id: number }) => p.id),
      expected.filter((id) => posts.find((p) => p.id === id)!.createdAt < pivot.createdAt),
      'created_before alone: every post created strictly earlier',
    );
    t.equal(onlyTime.body.has_next, false);
    t.equal(onlyTime.body.next, null, 'next is null when has_next is false');

    const offsetZone = await api.get(`/posts?created_before=${encodeURIComponent('2024-01-01T02:00:07+02:00')}&limit=100`, { expect: 200 });
    t.equal(offsetZone.body.data.length, 7 * 3, 'an offset timestamp is converted to UTC (00:00:07Z: 7 groups of 3 before it)');
  });

  t.test('every form walks the whole list, newest first, each post once', async (t) => {
    for (const form of ['standard', 'cursor', 'keyset', 'feed', 'offset'] as const) {
      t.same(await walk(form, { api, limit: 7 }), expected, form);
    }
  });

  t.test('parameters of two forms in one request are a 400 naming each', async (t) => {
    const cursor = (await api.get('/posts?limit=1', { expect: 200 })).body.pagination.cursor;
    const mixes: [string, string[]][] = [
      [`offset=0&after=${cursor}`, ['query.after', 'query.offset']],
      [`offset=0&created_before=2024-01-01T00:00:00Z`, ['query.created_before', 'query.offset']],
      [`after=${cursor}&id_before=3`, ['query.after', 'query.id_before']],
      [
        `after=${cursor}&created_before=2024-01-01T00:00:00Z&id_before=3&offset=1`,
        ['query.after', 'query.created_before', 'query.id_before', 'query.offset'],
      ],
      [`cursor=${cursor}&after=${cursor}`, ['query.after', 'query.cursor']],
      [`cursor=${cursor}&offset=0`, ['query.cursor', 'query.offset']],
      [`cursor=${cursor}&created_before=2024-01-01T00:00:00Z`, ['query.created_before', 'query.cursor']],
      [`cursor=${cursor}&id_before=3`, ['query.cursor', 'query.id_before']],
    ];
    for (const [query, fields] of mixes) {
      const r = await api.get(`/posts?${query}`, { expect: 400 });
      t.match(r.body, { type: '/problems/validation-error', status: 400, detail: /different pagination forms/ }, query);
      t.same(r.body.errors.map((e: { field: string }) => e.field).sort(), fields, query);
    }
  });
});
