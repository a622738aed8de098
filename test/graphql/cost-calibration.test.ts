// test-suite: once (limits are checked before execution)
/**
 * The queries the cost model is calibrated on (scripts/bench/cost-queries.ts, docs/graphql.md
 * "Limits"): every realistic one is estimated at its pinned cost, under the default limit of 200, and
 * answers with data; every hostile one is refused before execution.
 */
import { parse } from 'graphql';
import t from 'tap';
import { HOSTILE, REALISTIC, type CostQuery } from '../../scripts/bench/cost-queries.ts';
import { buildContentSchema } from '../../src/content/content.graph.ts';
import { compileCost } from '../../src/graphql/cost.ts';
import { operationComplexity } from '../../src/graphql/limits.ts';
import { sharedServer } from '../helpers/server.ts';
import { gql, seed } from './gql.ts';

const schema = buildContentSchema();

/** Scalars cost 0; a fetch 1; each row of a page 1; lists multiply by their size, limit or bound (10). */
const EXPECTED: Record<keyof typeof REALISTIC, number> = {
  // tags { name } = 1 + 10 × 0 = 1; a post = 1 (its row) + 1 = 2; posts (size 10) = 1 + 10 × 2 = 21;
  // a user = 1 + 21 = 22; users(size: 5) = 1 + 5 × 22 = 111.
  natural: 111,
  // author = 1; a post = 1 + 1 = 2; posts(size: 5) = 1 + 5 × 2 = 11; a user = 1 + 11 = 12; users(size: 5) = 1 + 5 × 12 = 61.
  feed: 61,
  // followers = 1, following = 1, posts(size: 10) = 1 + 10 × (1 + 1 (tags)) = 21; user = 1 + 1 + 1 + 21 = 24.
  profile: 24,
  // replies(limit: 5) = 1 + 5 × 1 (author); a comment = 1 + 1 (author) + 6 = 8; comments(size: 10) = 1 + 10 × 8 = 81;
  // post = 1 + 1 (author) + 1 (tags) + 81 = 84.
  post: 84,
  // posts(size: 3) = 1 + 3 × 1; searchUsers(limit: 10) = 1 + 10 × 4 = 41.
  search: 41,
};

const variablesOf = (q: CostQuery, ids: { user: string; post: string }) => {
  const all: Record<string, unknown> = { ...ids, ...q.variables };
  return Object.fromEntries(Object.entries(all).filter(([name]) => q.query.includes(`$${name}:`)));
};

t.test('estimates: realistic queries at their pinned cost, hostile ones over 200', async (t) => {
  const ids = { user: 'u', post: '1' };
  for (const [name, q] of Object.entries(REALISTIC) as [keyof typeof REALISTIC, CostQuery][]) {
    const variables = variablesOf(q, ids);
    const cost = operationComplexity(schema, parse(q.query), variables, undefined);
    t.equal(compileCost(schema, parse(q.query), undefined)(variables), cost, `${name}: compiled and walked agree`);
    t.equal(cost, EXPECTED[name], `${name} costs ${cost}`);
    t.ok(cost! <= 200, `${name} fits the default limit`);
  }
  for (const [name, q] of Object.entries(HOSTILE)) {
    const cost = operationComplexity(schema, parse(q.query), {}, undefined);
    // The fragment bomb is past the library's node cap (null): the expansion bound refuses it first.
    if (name === 'fragmentBomb') t.equal(cost, null, `${name}: no estimate`);
    else t.ok(cost! > 200, `${name} costs ${cost}`);
  }
});

t.test('over HTTP, under the default limits', async (t) => {
  const server = await sharedServer();
  const s = seed(server);
  const alice = await s.user('alice');
  const bob = await s.user('bob');
  const post = await s.post(alice.id, 'Hello', { tags: ['intro', 'graphql'] });
  const comment = await s.comment(bob.id, post.id);
  await s.reply(alice.id, comment.id);
  await s.follow(bob.id, alice.id);
  const ids = { user: alice.id, post: String(post.id) };

  for (const [name, q] of Object.entries(REALISTIC)) {
    const r = await gql(server, q.query, variablesOf(q, ids));
    t.equal(r.status, 200, `${name} answers 200`);
    t.same(r.body.errors, undefined, `${name}: no errors`);
    t.ok(r.body.data, `${name}: data`);
  }
  const natural = await gql(server, REALISTIC.natural.query);
  t.same(
    natural.body.data.users.content.find((u: { posts: { content: unknown[] } }) => u.posts.content.length),
    { posts: { content: [{ title: 'Hello', status: 'PUBLISHED', tags: [{ name: 'intro' }, { name: 'graphql' }] }] } },
  );
  const feed = await gql(server, REALISTIC.feed.query, REALISTIC.feed.variables);
  t.equal(feed.body.data.users.content.length, 2, 'the feed: both users');

  for (const [name, q] of Object.entries(HOSTILE)) {
    const r = await gql(server, q.query);
    t.equal(r.status, 400, `${name} is refused`);
    t.match(r.body.errors, [{ extensions: { errorType: 'BAD_REQUEST', code: 'QUERY_TOO_COMPLEX' } }], name);
    t.notOk(r.body.data, `${name}: nothing executed`);
  }
});
