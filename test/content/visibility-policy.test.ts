// test-suite: once (the visibility policy is one SQL predicate, the same text on both engines)
/**
 * Every read path that can reach a post agrees with the two visibility policies of
 * src/content/post-visibility.ts, for an anonymous caller, each author, and an ADMIN. The
 * expectations below are written from the documented rules, not from the module, so a path that
 * bypasses the policy (or a policy that drifts from its documentation) fails here.
 *
 * readable: PUBLISHED and ARCHIVED for everyone; a DRAFT for its author and ADMIN.
 * listed:   PUBLISHED for everyone; a DRAFT for its author only (ADMIN included); never ARCHIVED.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import t from 'tap';
import type { PostsRow } from '../../generated/db/types.ts';
import type { Principal } from '../../src/auth/principal.ts';
import { allows, listed, readable, visibilityCondition } from '../../src/content/post-visibility.ts';
import { as, gql, seed } from '../graphql/gql.ts';
import { primed, record, wsClient } from '../graphql/ws-client.ts';
import { sharedServer } from '../helpers/server.ts';
import { walk } from '../pagination/walk.ts';

interface Who {
  label: string;
  principal: Principal | null;
  token: string | undefined;
}

const isAdmin = (who: Who) => who.principal?.roles.includes('ADMIN') ?? false;
const isAuthor = (who: Who, post: PostsRow) => who.principal?.userId === post.author_id;
const mayRead = (who: Who, post: PostsRow) => post.status !== 'DRAFT' || isAuthor(who, post) || isAdmin(who);
const mayList = (who: Who, post: PostsRow) => post.status === 'PUBLISHED' || (post.status === 'DRAFT' && isAuthor(who, post));
const newestFirst = (posts: PostsRow[]) => posts.map((p) => p.id).sort((a, b) => b - a);

const POST = 'query($id: ID!) { post(id: $id) { id status comments { content { post { id } } } } }';
const USER_POSTS = 'query($id: ID!) { user(id: $id) { posts { content { id } totalElements } } }';

t.test('every read path follows the readable and listed policies', async (t) => {
  const server = await sharedServer();
  const s = seed(server);
  const alice = await s.user('alice');
  const bob = await s.user('bob');
  const admin = await s.user('admin');
  const { posts: service } = server.app.services;

  // Each author: two of each status (so a list holds several of each), each post with one comment.
  const posts: PostsRow[] = [];
  for (const round of [1, 2]) {
    for (const author of [alice, bob]) {
      for (const status of ['PUBLISHED', 'DRAFT', 'ARCHIVED'] as const) {
        const post = await s.post(author.id, `${status} ${round} by ${author.username}`, {
          status: status === 'DRAFT' ? 'DRAFT' : 'PUBLISHED',
          tags: ['shared'],
        });
        await s.comment(author.id, post.id, `on ${post.title}`);
        posts.push(status === 'ARCHIVED' ? await service.transition(as(author.id), String(post.id), 'archive') : post);
      }
    }
  }
  const viewers: Who[] = [
    { label: 'anonymous', principal: null, token: undefined },
    { label: 'alice (USER)', principal: as(alice.id, ['USER']), token: await server.token(alice.id, ['USER']) },
    { label: 'bob (USER)', principal: as(bob.id, ['USER']), token: await server.token(bob.id, ['USER']) },
    { label: 'ADMIN', principal: as(admin.id, ['ADMIN']), token: await server.token(admin.id, ['ADMIN']) },
  ];
  t.ok(
    viewers.some((v) => posts.some((p) => mayRead(v, p) !== mayList(v, p))),
    'the seed tells the two policies apart',
  );

  t.test('the policy module: SQL and in-memory forms agree with the documented rules', async (t) => {
    const { db } = server.database;
    for (const who of viewers) {
      for (const [name, policy, expected] of [
        ['readable', readable(who.principal), mayRead],
        ['listed', listed(who.principal), mayList],
      ] as const) {
        const inSql = await db.selectFrom('posts').select('id').where(visibilityCondition(policy)).orderBy('id', 'desc').execute();
        const want = newestFirst(posts.filter((p) => expected(who, p)));
        t.same(
          inSql.map((r) => r.id),
          want,
          `${who.label}, ${name}: SQL`,
        );
        t.same(newestFirst(posts.filter((p) => allows(policy, p))), want, `${who.label}, ${name}: in memory`);
      }
    }
    const listedAll = await sql<{ n: number }>`select count(*)::int as n from posts`.execute(db);
    t.equal(listedAll.rows[0]!.n, posts.length, 'no other posts exist in this database');
  });

  t.test('GraphQL post(id), Post.comments and Comment.post: readable', async (t) => {
    for (const who of viewers) {
      for (const post of posts) {
        const r = await gql(server, POST, { id: String(post.id) }, who.token);
        const label = `${who.label}, ${post.title}`;
        if (mayRead(who, post)) {
          t.same(r.body.errors, undefined, `${label}: readable`);
          t.same(r.body.data?.post?.comments.content, [{ post: { id: String(post.id) } }], `${label}: its comment leads back to it`);
        } else {
          t.same(r.body.data, { post: null }, `${label}: not readable`);
          t.match(r.body.errors, [{ extensions: { errorType: 'NOT_FOUND', code: 'POST_NOT_FOUND' } }]);
        }
      }
    }
  });

  t.test('the Comment.post loader: readable posts only, null otherwise', async (t) => {
    for (const who of viewers) {
      const loaders = server.app.services.contentLoaders.forRequest(who.principal);
      const loaded = await Promise.all(posts.map((p) => loaders.post.load(p.id)));
      t.same(
        loaded.map((p) => p?.id ?? null),
        posts.map((p) => (mayRead(who, p) ? p.id : null)),
        who.label,
      );
    }
  });

  t.test('GraphQL User.posts: readable, per author', async (t) => {
    for (const who of viewers) {
      for (const author of [alice, bob]) {
        const r = await gql(server, USER_POSTS, { id: author.id }, who.token);
        const want = newestFirst(posts.filter((p) => p.author_id === author.id && mayRead(who, p))).map(String);
        t.same(
          r.body.data?.user.posts,
          { content: want.map((id) => ({ id })), totalElements: want.length },
          `${who.label}, ${author.username}'s posts`,
        );
      }
    }
  });

  t.test('mutations naming a post (likePost): readable, otherwise NOT_FOUND', async (t) => {
    for (const who of viewers.filter((v) => v.token)) {
      for (const post of posts) {
        const r = await gql(server, 'mutation($id: ID!) { likePost(postId: $id) { id } }', { id: String(post.id) }, who.token);
        if (mayRead(who, post)) t.same(r.body.data, { likePost: { id: String(post.id) } }, `${who.label}, ${post.title}`);
        else t.match(r.body.errors, [{ extensions: { code: 'POST_NOT_FOUND' } }], `${who.label}, ${post.title}`);
      }
    }
  });

  t.test('REST /posts in every form and /feed: listed', async (t) => {
    for (const who of viewers) {
      const want = newestFirst(posts.filter((p) => mayList(who, p)));
      for (const form of ['standard', 'cursor', 'keyset', 'offset', 'feed'] as const) {
        t.same(await walk(form, { api: server.api, limit: 2, token: who.token }), want, `${who.label}, ${form}`);
      }
      const offset = await server.api.get('/posts?offset=0&limit=1', { token: who.token, expect: 200 });
      t.equal(offset.body.pagination.total, want.length, `${who.label}: the offset total counts listed posts`);
    }
  });

  t.test('subscriptions: readable when subscribing and again at each delivery', async (t) => {
    // Only the comment's own field: the post's readability must be checked at delivery, not left to
    // Comment.post.
    const COMMENT_ADDED = 'subscription($p: ID!) { commentAdded(postId: $p) { content } }';
    const watched = await s.post(alice.id, 'Watched');
    const recordings = viewers.map((who) => ({
      who,
      sub: record(wsClient(t, server.baseUrl, who.token), COMMENT_ADDED, { p: String(watched.id) }),
    }));
    for (const { sub } of recordings) await primed(sub, () => s.comment(bob.id, watched.id, 'probe'));
    await sleep(200);
    const before = recordings.map(({ sub }) => sub.results.length);
    // Archived, then restored: a DRAFT again, which only alice and ADMIN may read.
    await service.transition(as(alice.id), String(watched.id), 'archive');
    const draft = await service.transition(as(alice.id), String(watched.id), 'restore');
    t.equal(draft.status, 'DRAFT');
    await s.comment(alice.id, watched.id, 'private note');
    for (const [i, { who, sub }] of recordings.entries()) {
      await sub.until((r) => r.length > before[i]!);
      const delivered = sub.results[before[i]!]!;
      if (mayRead(who, draft)) {
        t.same(delivered.data, { commentAdded: { content: 'private note' } }, `${who.label}: delivered`);
      } else {
        t.notOk(delivered.data?.commentAdded, `${who.label}: nothing of the comment`);
        t.match(delivered.errors, [{ extensions: { code: 'POST_NOT_FOUND' } }], `${who.label}: as absent`);
      }
    }

    const secret = await s.post(bob.id, 'Secret', { status: 'DRAFT' });
    for (const who of viewers) {
      const sub = record(wsClient(t, server.baseUrl, who.token), COMMENT_ADDED, { p: String(secret.id) });
      if (mayRead(who, secret)) {
        await primed(sub, () => s.comment(bob.id, secret.id, 'probe'));
        t.pass(`${who.label}: may follow bob's draft`);
      } else {
        await sub.completed;
        t.match(sub.results, [{ errors: [{ extensions: { code: 'POST_NOT_FOUND' } }] }], `${who.label}: refused at subscribe time`);
      }
    }
  });
});
