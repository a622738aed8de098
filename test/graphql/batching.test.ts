// test-suite: once (it counts the statements the application sends, the same on both engines; the planner's SQL runs on both in planner.property.test.ts)
/**
 * DataLoader batching: the statements of the nested query do not grow with the number of
 * users, posts or comments. On PostgreSQL in `npm test`, on PGlite in the long tier.
 */
import t, { type Test } from 'tap';
import { sharedServer, type TestServer } from '../helpers/server.ts';
import { gql } from './gql.ts';

const QUERY = `{ users(size: 20) { content { posts(size: 10) { content {
  author { id } tags { name } likeCount
  comments(size: 5) { content { author { id } replies { id } } }
} } } } }`;

/**
 * n users, each with min(n, 10) posts; each post min(n, 5) comments with one reply, a tag and a like.
 * Comments are written by a separate (inactive, so unlisted) user: comment authors are then a lookup
 * of their own rather than hits in the loader's cache of post authors.
 */
async function seedGraph(server: TestServer, n: number): Promise<void> {
  const db = server.database.db;
  const users = await db
    .insertInto('users')
    .values(Array.from({ length: n }, (_, i) => ({ username: `u${i}`, email: `u${i}@example.com`, display_name: `U ${i}` })))
    .returning('id')
    .execute();
  const [commenter] = await db
    .insertInto('users')
    .values({ username: 'commenter', email: 'commenter@example.com', display_name: 'C', active: false })
    .returning('id')
    .execute();
  const [tag] = await db.insertInto('tags').values({ name: 'batch' }).returning('id').execute();
  const posts = await db
    .insertInto('posts')
    .values(
      users.flatMap((u, i) =>
        Array.from({ length: Math.min(n, 10) }, (_, j) => ({
          author_id: u.id,
          title: 'T',
          content: 'C',
          slug: `p-${i}-${j}`,
          status: 'PUBLISHED',
        })),
      ),
    )
    .returning(['id', 'author_id'])
    .execute();
  await db
    .insertInto('post_tags')
    .values(posts.map((p) => ({ post_id: p.id, tag_id: tag!.id, position: 0 })))
    .execute();
  await db
    .insertInto('post_likes')
    .values(posts.map((p) => ({ post_id: p.id, user_id: p.author_id })))
    .execute();
  const comments = await db
    .insertInto('comments')
    .values(posts.flatMap((p) => Array.from({ length: Math.min(n, 5) }, () => ({ post_id: p.id, author_id: commenter!.id, content: 'c' }))))
    .returning(['id', 'post_id', 'author_id'])
    .execute();
  await db
    .insertInto('comments')
    .values(comments.map((c) => ({ post_id: c.post_id, author_id: c.author_id, parent_id: c.id, content: 'r' })))
    .execute();
}

async function statementsFor(t: Test, n: number): Promise<{ count: number; users: number; posts: number; comments: number }> {
  // The query costs far more than 200 under the cost model: this test is about batching.
  const server = await sharedServer({ env: { GRAPHQL_MAX_COMPLEXITY: '1000000' } });
  await seedGraph(server, n);
  const statements: string[] = [];
  const stop = server.database.observeQueries((sql) => statements.push(sql));
  const r = await gql(server, QUERY);
  stop();
  t.same(r.body.errors, undefined);
  const users = r.body.data.users.content;
  const posts = users.flatMap((u: any) => u.posts.content);
  const comments = posts.flatMap((p: any) => p.comments.content);
  t.ok(
    comments.every((c: any) => c.replies.length === 1 && c.author.id),
    'every level resolved',
  );
  return { count: statements.length, users: users.length, posts: posts.length, comments: comments.length };
}

t.test('statement count is the same for 1, 10 and 100 parents', async (t) => {
  const one = await statementsFor(t, 1);
  const ten = await statementsFor(t, 10);
  const hundred = await statementsFor(t, 100);
  t.same([one.users, one.posts, one.comments], [1, 1, 1]);
  t.same([ten.users, ten.posts, ten.comments], [10, 100, 500]);
  t.same([hundred.users, hundred.posts, hundred.comments], [20, 200, 1000]);
  // `replies` keeps this query off the whole-operation plan, so the resolvers answer it: users, their
  // pages of posts, the posts' authors (3) · tags, like counts, comment pages (3) · comment authors,
  // replies (2): one statement per loader and level.
  t.equal(one.count, 8, `statements for 1 parent: ${one.count}`);
  t.equal(ten.count, one.count, 'same count for 10 parents');
  t.equal(hundred.count, one.count, 'same count for 100 parents');
});

const COVERED = `{ users(size: 20) { totalElements content { id username followerCount
  posts(size: 10) { totalElements hasNext content { id title author { id username posts(size: 2) { totalElements } } } }
} } }`;

t.test('a selection the planner covers is one statement, for 1, 10 and 100 parents', async (t) => {
  for (const n of [1, 10, 100]) {
    const server = await sharedServer({ env: { GRAPHQL_MAX_COMPLEXITY: '1000000' } });
    await seedGraph(server, n);
    const statements: string[] = [];
    const stop = server.database.observeQueries((sql) => statements.push(sql));
    const r = await gql(server, COVERED);
    stop();
    t.same(r.body.errors, undefined);
    const users = r.body.data.users.content;
    t.equal(users.length, Math.min(n, 20));
    t.ok(
      users.every((u: any) => u.posts.totalElements === Math.min(n, 10) && u.posts.content.every((p: any) => p.author.id === u.id)),
      'every level resolved',
    );
    t.equal(statements.length, 1, `${n} parents: ${statements.length} statement(s)`);
  }
});
