// test-suite: once (cursor encoding and signing)
/**
 * Cursors are opaque and tamper-proof (rule 2): a modified, truncated or foreign cursor (other
 * endpoint, other feed direction, other caller, other server secret) is a 400 invalid-cursor Problem,
 * never a 500 or a wrong page. Also: positions keep microseconds, so no post is skipped.
 */
import t from 'tap';
import { CursorCodec, callerKey, deriveCursorSecret } from '../../src/http/cursor.ts';
import type { operations } from '../../generated/openapi/posts.ts';
import { sharedServer, TEST_JWT_SECRET, type TestServer } from '../helpers/server.ts';
import { bearer, dataOf, errorOf } from '../helpers/typed-client.ts';
import { cursorPage, keysetPage, standardPage } from './page-forms.ts';
import { newestFirst, ORIGIN_MICROS, Seed } from './seed.ts';

type PostsQuery = NonNullable<operations['listPosts']['parameters']['query']>;
type FeedQuery = NonNullable<operations['getFeed']['parameters']['query']>;
type Request = ['/posts', PostsQuery] | ['/feed', FeedQuery];

function postsList(server: TestServer, query: PostsQuery, token?: string) {
  return server.posts.GET('/posts', { params: { query }, headers: bearer(token) });
}

/** One GET of /posts or /feed through the typed posts client (for refusals: the body is a Problem). */
function list(server: TestServer, [path, query]: Request, token?: string): Promise<{ response: Response; error?: unknown }> {
  return path === '/posts' ? postsList(server, query, token) : server.posts.GET('/feed', { params: { query }, headers: bearer(token) });
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const payloadOf = (cursor: string) => JSON.parse(Buffer.from(cursor.split('.')[0]!, 'base64url').toString());

t.test('cursor integrity', async (t) => {
  const server = await sharedServer();
  const get = (query: PostsQuery, token?: string) => dataOf(200, postsList(server, query, token));
  const seed = new Seed(server.database.db);
  await seed.users('alice', 'bob');
  const posts = await seed.posts(
    Array.from({ length: 30 }, (_, i) => ({ author: 'alice', createdAtMicros: ORIGIN_MICROS + BigInt(i) * 1_000_000n })),
  );
  const alice = await server.token('alice');
  const bob = await server.token('bob');

  const anonCursor = standardPage(await get({ limit: 5 })).pagination.cursor!;
  const aliceCursor = standardPage(await get({ limit: 5 }, alice)).pagination.cursor!;
  const feedPage = await dataOf(200, server.posts.GET('/feed', { params: { query: { limit: 5 } } }));
  const feedBefore = feedPage.cursors.before!;
  const feedAfter = (await dataOf(200, server.posts.GET('/feed', { params: { query: { limit: 5, before: feedBefore } } }))).cursors.after!;

  t.test('genuine cursors work for their own caller and parameter', async (t) => {
    t.equal((await get({ after: anonCursor })).data.length, 20);
    t.equal((await get({ after: aliceCursor }, alice)).data.length, 20);
    t.equal((await get({ cursor: anonCursor })).data.length, 20);
    t.equal((await get({ cursor: aliceCursor }, alice)).data.length, 20);
    t.equal((await dataOf(200, server.posts.GET('/feed', { params: { query: { after: feedAfter } } }))).data.length, 5);
    t.same(
      payloadOf(anonCursor),
      { c: [...posts].sort(newestFirst)[4]!.createdAt, i: [...posts].sort(newestFirst)[4]!.id },
      'the payload is a JSON object of the ordering values',
    );
  });

  const [body, mac] = anonCursor.split('.') as [string, string];
  const flip = (s: string, at: number) => s.slice(0, at) + (s[at] === 'A' ? 'B' : 'A') + s.slice(at + 1);
  const bad: [string, Request, string][] = [
    ['payload re-encoded with another id', ['/posts', { after: `${b64({ ...payloadOf(anonCursor), i: 1 })}.${mac}` }], 'query.after'],
    [
      'payload re-encoded with another time',
      ['/posts', { after: `${b64({ ...payloadOf(anonCursor), c: '2023-01-01T00:00:00.000000Z' })}.${mac}` }],
      'query.after',
    ],
    ['one character of the payload changed', ['/posts', { after: `${flip(body, 3)}.${mac}` }], 'query.after'],
    ['last character of the signature changed', ['/posts', { after: `${body}.${flip(mac, mac.length - 1)}` }], 'query.after'],
    ['signature truncated', ['/posts', { after: anonCursor.slice(0, -1) }], 'query.after'],
    ['signature removed', ['/posts', { after: body }], 'query.after'],
    ['payload truncated', ['/posts', { after: `${body.slice(0, -2)}.${mac}` }], 'query.after'],
    ['half a cursor', ['/posts', { after: anonCursor.slice(0, anonCursor.length >> 1) }], 'query.after'],
    ['garbage', ['/posts', { after: 'not-a-cursor' }], 'query.after'],
    ['characters outside base64url', ['/posts', { after: `${body}+.${mac}` }], 'query.after'],
    ['a /feed cursor on /posts', ['/posts', { after: feedBefore }], 'query.after'],
    ['standard form: one character of the payload changed', ['/posts', { cursor: `${flip(body, 3)}.${mac}` }], 'query.cursor'],
    [
      'standard form: payload re-encoded with another id',
      ['/posts', { cursor: `${b64({ ...payloadOf(anonCursor), i: 1 })}.${mac}` }],
      'query.cursor',
    ],
    ['standard form: signature truncated', ['/posts', { cursor: anonCursor.slice(0, -1) }], 'query.cursor'],
    ['standard form: garbage', ['/posts', { cursor: 'not-a-cursor' }], 'query.cursor'],
    ['standard form: a feed before-cursor', ['/posts', { cursor: feedBefore }], 'query.cursor'],
    ['standard form: a feed after-cursor', ['/posts', { cursor: feedAfter }], 'query.cursor'],
    ['a /posts cursor on /feed', ['/feed', { before: anonCursor }], 'query.before'],
    ['a feed before-cursor passed as after', ['/feed', { after: feedBefore }], 'query.after'],
    ['a feed after-cursor passed as before', ['/feed', { before: feedAfter }], 'query.before'],
  ];
  t.test('tampered, truncated and foreign-endpoint cursors are 400 invalid-cursor', async (t) => {
    for (const [label, request, field] of bad) {
      const r = await errorOf(400, list(server, request));
      t.match(r, { status: 400, type: '/problems/invalid-cursor', code: 'INVALID_CURSOR', errors: [{ field }] }, label);
    }
  });

  t.test("another caller's cursor is a 400", async (t) => {
    const cases: [string, string | undefined, string][] = [
      ["alice's cursor used anonymously", undefined, aliceCursor],
      ["alice's cursor used by bob", bob, aliceCursor],
      ['an anonymous cursor used by alice', alice, anonCursor],
    ];
    for (const [label, token, cursor] of cases) {
      for (const parameter of ['after', 'cursor'] as const) {
        const r = await errorOf(400, list(server, ['/posts', { [parameter]: cursor }], token));
        t.match(r, { type: '/problems/invalid-cursor', errors: [{ field: `query.${parameter}` }] }, `${label} (${parameter})`);
      }
    }
  });

  t.test('a cursor signed under another secret is a 400', async (t) => {
    const foreign = new CursorCodec(deriveCursorSecret('another-secret-that-is-at-least-32-characters'));
    const cursor = foreign.encode('posts.after', callerKey(null), payloadOf(anonCursor));
    t.not(cursor, anonCursor);
    t.match(await errorOf(400, list(server, ['/posts', { after: cursor }])), { type: '/problems/invalid-cursor' });
  });

  t.test('a correctly signed cursor with a malformed payload is still a 400, not a 500', async (t) => {
    const ours = new CursorCodec(deriveCursorSecret(TEST_JWT_SECRET));
    const payloads: unknown[] = [
      { c: 'yesterday', i: 1 },
      { c: '2024-01-01T00:00:00.000000Z', i: 2 ** 40 },
      { c: '2024-01-01T00:00:00.000000Z', i: 0 },
      { c: '2024-01-01T00:00:00.000000Z', i: '1' },
      { c: '2024-01-01T00:00:00.000000Z', i: 1, extra: true },
      [1, 2],
      'text',
    ];
    for (const payload of payloads) {
      const cursor = ours.encode('posts.after', callerKey(null), payload as object);
      t.match(
        await errorOf(400, list(server, ['/posts', { after: cursor }])),
        { type: '/problems/invalid-cursor' },
        JSON.stringify(payload),
      );
    }
    const notJson = `${Buffer.from('{oops').toString('base64url')}`;
    const signed = ours.encode('posts.after', callerKey(null), {}).split('.')[1]!;
    t.match(await errorOf(400, list(server, ['/posts', { after: `${notJson}.${signed}` }])), { type: '/problems/invalid-cursor' });
  });
});

t.test('positions keep microseconds: posts within one millisecond are neither skipped nor repeated', async (t) => {
  const server = await sharedServer();
  const seed = new Seed(server.database.db);
  await seed.users('alice');
  // 12 posts inside one millisecond, 83 µs apart, inserted in shuffled order so ids do not follow time.
  const micros = Array.from({ length: 12 }, (_, i) => ORIGIN_MICROS + 500n + BigInt(i) * 83n);
  const posts = await seed.posts([5, 0, 11, 3, 8, 1, 10, 6, 2, 9, 4, 7].map((i) => ({ author: 'alice', createdAtMicros: micros[i]! })));
  const expected = [...posts].sort(newestFirst).map((p) => p.id);
  const seen: number[] = [];
  const get = (query: PostsQuery) => dataOf(200, postsList(server, query));
  const first = standardPage(await get({ limit: 1 }));
  seen.push(...first.data.map((p) => p.id));
  let cursor = first.pagination.cursor;
  while (cursor) {
    const page = cursorPage(await get({ limit: 1, after: cursor }));
    seen.push(...page.data.map((p) => p.id));
    cursor = page.cursor;
  }
  t.same(seen, expected);
  let keyset = keysetPage(await get({ limit: 1, created_before: '2030-01-01T00:00:00Z' }));
  const viaKeyset = keyset.data.map((p) => p.id);
  while (keyset.next) {
    keyset = keysetPage(await get({ limit: 1, created_before: keyset.next.created_before, id_before: keyset.next.id_before }));
    viaKeyset.push(...keyset.data.map((p) => p.id));
  }
  t.same(viaKeyset, expected);
});
