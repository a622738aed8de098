// test-suite: once (the forms' envelopes and rules)
/**
 * GET /posts: the form is chosen by the parameters present, each form answers in its own envelope,
 * and rules 1, 3, 4 and 5 hold for each (order, has_next, null cursors, total only for offset).
 */
import t from 'tap';
import type { operations } from '../../generated/openapi/posts.ts';
import { sharedServer } from '../helpers/server.ts';
import { dataOf, errorOf } from '../helpers/typed-client.ts';
import { cursorPage, keysetPage, offsetPage, standardPage } from './page-forms.ts';
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
  const server = await sharedServer();
  const { api } = server;
  const list = (query: NonNullable<operations['listPosts']['parameters']['query']> = {}) =>
    server.posts.GET('/posts', { params: { query } });
  const get = async (query?: Parameters<typeof list>[0]) => dataOf(200, list(query));
  const ids = (page: { data: { id: number }[] }) => page.data.map((p) => p.id);
  const seed = new Seed(server.database.db);
  await seed.users('alice');
  const posts: SeededPost[] = await seed.posts(specs());
  const expected = [...posts].sort(newestFirst).map((p) => p.id);
  const firstIds = expected.slice(0, 20);

  t.test('no paging parameter: the standard envelope, default limit 20, newest first with id tiebreak', async (t) => {
    const r = await get();
    t.same(Object.keys(r).sort(), ['data', 'pagination']);
    const page = standardPage(r);
    t.same(Object.keys(page.pagination).sort(), ['cursor', 'has_next', 'limit']);
    t.equal(page.pagination.limit, 20);
    t.equal(page.pagination.has_next, true);
    t.type(page.pagination.cursor, 'string');
    t.same(ids(page), firstIds);
    // Within a created_at group the higher id comes first.
    const [a, b] = page.data;
    t.equal(a!.createdAt, b!.createdAt);
    t.ok(a!.id > b!.id);
  });

  t.test('after: the cursor envelope continues exactly where the standard page ended', async (t) => {
    const first = standardPage(await get({ limit: 20 }));
    const r = await get({ after: first.pagination.cursor!, limit: 20 });
    t.same(Object.keys(r).sort(), ['cursor', 'data', 'has_next']);
    const page = cursorPage(r);
    t.same(ids(page), expected.slice(20, 40));
    const last = cursorPage(await get({ after: page.cursor!, limit: 20 }));
    t.same(ids(last), expected.slice(40));
    t.equal(last.has_next, false);
    t.equal(last.cursor, null, 'rule 1: cursor is null when has_next is false');
  });

  t.test('a page that ends exactly at the last item says has_next false', async (t) => {
    const r = standardPage(await get({ limit: 45 }));
    t.equal(r.data.length, 45);
    t.equal(r.pagination.has_next, false);
    t.equal(r.pagination.cursor, null);
  });

  t.test('cursor: the standard envelope follows its own pagination.cursor to the last page', async (t) => {
    const first = standardPage(await get({ limit: 20 }));
    const secondBody = await get({ cursor: first.pagination.cursor!, limit: 20 });
    t.same(Object.keys(secondBody).sort(), ['data', 'pagination'], 'still the standard envelope, not the cursor one');
    const second = standardPage(secondBody);
    t.same(ids(second), expected.slice(20, 40), 'continues after page 1 instead of repeating it');
    t.equal(second.pagination.has_next, true);
    const last = standardPage(await get({ cursor: second.pagination.cursor!, limit: 20 }));
    t.same(last, {
      data: last.data,
      pagination: { cursor: null, has_next: false, limit: 20 },
    });
    t.same(ids(last), expected.slice(40));
    const defaultLimit = standardPage(await get({ cursor: first.pagination.cursor! }));
    t.equal(defaultLimit.pagination.limit, 20, 'limit defaults to 20 with a cursor too');
  });

  t.test("the two forms take each other's cursors; the parameter decides the envelope", async (t) => {
    const standard = standardPage(await get({ limit: 10 })).pagination.cursor!;
    const cursorForm = cursorPage(await get({ after: standard, limit: 10 })).cursor!;
    const asCursor = await get({ cursor: cursorForm, limit: 10 });
    const asAfter = await get({ after: cursorForm, limit: 10 });
    t.same(Object.keys(asCursor).sort(), ['data', 'pagination']);
    t.same(Object.keys(asAfter).sort(), ['cursor', 'data', 'has_next']);
    t.same(asCursor.data, asAfter.data, 'the same page either way');
    t.same(ids(asCursor), expected.slice(20, 30));
  });

  t.test('offset: data + pagination{total, offset, limit, has_next}', async (t) => {
    const r = offsetPage(await get({ offset: 40, limit: 10 }));
    t.same(r.pagination, { total: 45, offset: 40, limit: 10, has_next: false });
    t.same(ids(r), expected.slice(40));
    const mid = offsetPage(await get({ offset: 10, limit: 10 }));
    t.same(mid.pagination, { total: 45, offset: 10, limit: 10, has_next: true });
    t.same(ids(mid), expected.slice(10, 20));
    const past = await get({ offset: 500 });
    t.same(past, { data: [], pagination: { total: 45, offset: 500, limit: 20, has_next: false } });
  });

  t.test('keyset: strictly before (created_before, id_before), next carries exact values', async (t) => {
    const pivot = [...posts].sort(newestFirst)[4]!; // second in its created_at group of three
    const body = await get({ created_before: pivot.createdAt, id_before: pivot.id, limit: 5 });
    t.same(Object.keys(body).sort(), ['data', 'has_next', 'next']);
    const r = keysetPage(body);
    t.same(ids(r), expected.slice(5, 10));
    const last = [...posts].sort(newestFirst)[9]!;
    t.same(r.next, { created_before: last.createdAt, id_before: last.id });
    t.equal(r.has_next, true);

    const onlyTime = keysetPage(await get({ created_before: pivot.createdAt, limit: 100 }));
    t.same(
      ids(onlyTime),
      expected.filter((id) => posts.find((p) => p.id === id)!.createdAt < pivot.createdAt),
      'created_before alone: every post created strictly earlier',
    );
    t.equal(onlyTime.has_next, false);
    t.equal(onlyTime.next, null, 'next is null when has_next is false');

    const offsetZone = await get({ created_before: '2024-01-01T02:00:07+02:00', limit: 100 });
    t.equal(offsetZone.data.length, 7 * 3, 'an offset timestamp is converted to UTC (00:00:07Z: 7 groups of 3 before it)');
  });

  t.test('every form walks the whole list, newest first, each post once', async (t) => {
    for (const form of ['standard', 'cursor', 'keyset', 'feed', 'offset'] as const) {
      t.same(await walk(form, { api, limit: 7 }), expected, form);
    }
  });

  t.test('parameters of two forms in one request are a 400 naming each', async (t) => {
    const cursor = standardPage(await get({ limit: 1 })).pagination.cursor!;
    const mixes: [Parameters<typeof list>[0], string[]][] = [
      [{ offset: 0, after: cursor }, ['query.after', 'query.offset']],
      [{ offset: 0, created_before: '2024-01-01T00:00:00Z' }, ['query.created_before', 'query.offset']],
      [{ after: cursor, id_before: 3 }, ['query.after', 'query.id_before']],
      [
        { after: cursor, created_before: '2024-01-01T00:00:00Z', id_before: 3, offset: 1 },
        ['query.after', 'query.created_before', 'query.id_before', 'query.offset'],
      ],
      [{ cursor, after: cursor }, ['query.after', 'query.cursor']],
      [{ cursor, offset: 0 }, ['query.cursor', 'query.offset']],
      [{ cursor, created_before: '2024-01-01T00:00:00Z' }, ['query.created_before', 'query.cursor']],
      [{ cursor, id_before: 3 }, ['query.cursor', 'query.id_before']],
    ];
    for (const [query, fields] of mixes) {
      const label = JSON.stringify(query);
      const r = await errorOf(400, list(query));
      t.match(r, { type: '/problems/validation-error', status: 400, detail: /different pagination forms/ }, label);
      t.same(r.errors?.map((e) => e.field).sort(), fields, label);
    }
  });
});
