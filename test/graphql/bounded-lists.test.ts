// test-suite: once (the bounded list SQL is the same text on both engines)
/**
 * `User.followers`, `User.following` and `Comment.replies` return at most `limit` rows per parent
 * (default 20, 1–100), in the order each documents, bounded in SQL in one statement for every parent;
 * the cost model multiplies by the same `limit`.
 */
import t from 'tap';
import { sharedServer, type TestServer } from '../helpers/server.ts';
import { gql, seed } from './gql.ts';

/** `count` users following `followee`, the follow of `f<i>` made i minutes after the first. */
async function followers(server: TestServer, followee: string, count: number, prefix: string): Promise<string[]> {
  const db = server.database.db;
  const users = await db
    .insertInto('users')
    .values(Array.from({ length: count }, (_, i) => ({ username: `${prefix}${i}`, email: `${prefix}${i}@example.com`, display_name: 'F' })))
    .returning('id')
    .execute();
  await db
    .insertInto('follows')
    .values(users.map((u, i) => ({ follower_id: u.id, followee_id: followee, created_at: new Date(Date.UTC(2026, 0, 1, 0, i)) })))
    .execute();
  return users.map((u) => u.id);
}

t.test('followers and following: at most `limit` per user, most recent follow first', async (t) => {
  const server = await sharedServer();
  const alice = await seed(server).user('alice');
  const bob = await seed(server).user('bob');
  const ofAlice = await followers(server, alice.id, 25, 'a');
  const ofBob = await followers(server, bob.id, 3, 'b');

  // One list of parents, so their followers are one batch (two root fields would resolve apart).
  const statements: string[] = [];
  const stop = server.database.observeQueries((sql) => statements.push(sql));
  const r = await gql(server, '{ users(size: 2) { content { id followers(limit: 2) { id } } } }');
  stop();
  t.same(r.body.errors, undefined);
  const listed = new Map(
    r.body.data.users.content.map((u: { id: string; followers: { id: string }[] }) => [u.id, u.followers.map((f) => f.id)]),
  );
  t.same(listed.get(alice.id), [ofAlice[24], ofAlice[23]], 'the two most recent followers');
  t.same(listed.get(bob.id), [ofBob[2], ofBob[1]], 'the bound holds per user, not per batch');
  t.equal(statements.filter((s) => /from "follows"/.test(s) && /row_number\(\)/.test(s)).length, 1, 'both users in one statement');

  const defaults = await gql(server, 'query($a: ID!) { user(id: $a) { followers { id } followerCount } }', { a: alice.id });
  t.equal(defaults.body.data.user.followers.length, 10, 'default limit 10');
  t.equal(defaults.body.data.user.followerCount, 25, 'followerCount still counts every follower');
  const explicitNull = await gql(server, 'query($a: ID!) { user(id: $a) { followers(limit: null) { id } } }', { a: alice.id });
  t.equal(explicitNull.body.data.user.followers.length, 10, 'null means the default');
  const all = await gql(server, 'query($a: ID!) { user(id: $a) { followers(limit: 100) { id } } }', { a: alice.id });
  t.same(
    all.body.data.user.followers.map((u: { id: string }) => u.id),
    [...ofAlice].reverse(),
    'limit 100: every follower, most recent first',
  );

  const following = await gql(server, 'query($f: ID!) { user(id: $f) { following(limit: 1) { id } } }', { f: ofAlice[0] });
  t.same(following.body.data.user.following, [{ id: alice.id }]);
  await server.database.db
    .insertInto('follows')
    .values({ follower_id: ofAlice[0]!, followee_id: bob.id, created_at: new Date(Date.UTC(2026, 1, 1)) })
    .execute();
  const latest = await gql(server, 'query($f: ID!) { user(id: $f) { one: following(limit: 1) { id } two: following { id } } }', {
    f: ofAlice[0],
  });
  t.same(latest.body.data.user, { one: [{ id: bob.id }], two: [{ id: bob.id }, { id: alice.id }] }, 'most recent follow first');
});

t.test('replies: at most `limit` per comment, oldest first', async (t) => {
  const server = await sharedServer();
  const s = seed(server);
  const alice = await s.user('alice');
  const post = await s.post(alice.id, 'Post');
  const first = await s.comment(alice.id, post.id, 'first');
  const second = await s.comment(alice.id, post.id, 'second');
  const replies: string[] = [];
  for (let i = 0; i < 3; i++) replies.push(String((await s.reply(alice.id, first.id, `r${i}`)).id));
  const only = String((await s.reply(alice.id, second.id, 'only')).id);
  const r = await gql(
    server,
    'query($p: ID!) { post(id: $p) { comments { content { id limited: replies(limit: 2) { id } all: replies { id } } } } }',
    { p: String(post.id) },
  );
  t.same(r.body.errors, undefined);
  t.same(r.body.data.post.comments.content, [
    { id: String(first.id), limited: [{ id: replies[0] }, { id: replies[1] }], all: replies.map((id) => ({ id })) },
    { id: String(second.id), limited: [{ id: only }], all: [{ id: only }] },
  ]);
});

t.test('limit is 1 to 100', async (t) => {
  const server = await sharedServer();
  const s = seed(server);
  const alice = await s.user('alice');
  const post = await s.post(alice.id, 'Post');
  await s.comment(alice.id, post.id);
  for (const [field, limit] of [
    ['followers', 0],
    ['following', 101],
  ] as const) {
    const r = await gql(server, `query($a: ID!) { user(id: $a) { ${field}(limit: ${limit}) { id } } }`, { a: alice.id });
    t.match(r.body.errors, [{ extensions: { errorType: 'BAD_REQUEST', code: 'VALIDATION_ERROR', violations: [{ field: 'limit' }] } }]);
  }
  const replies = await gql(server, 'query($p: ID!) { post(id: $p) { comments { content { replies(limit: 0) { id } } } } }', {
    p: String(post.id),
  });
  t.match(replies.body.errors, [{ extensions: { errorType: 'BAD_REQUEST', code: 'VALIDATION_ERROR', violations: [{ field: 'limit' }] } }]);
});

t.test('cost: the limit multiplies the list, as size does', async (t) => {
  const server = await sharedServer();
  await seed(server).user('alice');
  // Scalars cost 0, posts(size: 1) { totalElements } = 1 (a fetch per user):
  // 1 + 1 × (1 + (1 + 100 × 1) + (1 + 96 × 1)) = 200
  const counts = 'posts(size: 1) { totalElements }';
  const at200 = await gql(
    server,
    `{ users(size: 1) { content { followers(limit: 100) { ${counts} } following(limit: 96) { ${counts} } } } }`,
  );
  t.same(at200.body.errors, undefined);
  const at201 = await gql(
    server,
    `{ users(size: 1) { content { followers(limit: 100) { ${counts} } following(limit: 97) { ${counts} } } } }`,
  );
  t.equal(at201.body.errors?.[0].message, 'Query complexity 201 exceeds the maximum complexity of 200');
  // 1 + 1 × (1 + (1 + 10 × (1 + 20 × 1))) = 213: an omitted limit counts as its default, 10.
  const nested = await gql(server, `{ users(size: 1) { content { id followers { following(limit: 20) { ${counts} } } } } }`);
  t.equal(nested.body.errors?.[0].message, 'Query complexity 213 exceeds the maximum complexity of 200');
  // 1 + (1 + 100 × (1 + (1 + 98 × 1))) = 10 002 (each reply's author a fetch), then 1 + (1 + 1 × (1 + (1 + 5 × 0))) = 4.
  const replies = await gql(server, '{ post(id: "1") { comments(size: 100) { content { replies(limit: 98) { author { id } } } } } }');
  t.equal(replies.body.errors?.[0].extensions.code, 'QUERY_TOO_COMPLEX', 'replies are multiplied by their limit');
  const fewReplies = await gql(server, '{ post(id: "1") { comments(size: 1) { content { replies(limit: 5) { id } } } } }');
  t.equal(fewReplies.body.errors?.[0].extensions.code, 'POST_NOT_FOUND', 'replies(limit: 5) under one comment is cheap: it runs');
});
