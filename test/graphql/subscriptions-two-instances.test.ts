// test-suite: postgres-only (two instances cannot share an in-memory PGlite; the file skips there)
/**
 * Two server instances sharing one PostgreSQL database: a subscriber on instance A receives what is
 * created through instance B (events travel through LISTEN/NOTIFY), and never another author's posts
 * or another post's comments.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { createServer } from '../../src/server.ts';
import { onPostgres } from '../helpers/database.ts';
import { sharedServer, type TestServer } from '../helpers/server.ts';
import { gql, seed } from './gql.ts';
import { primed, record, wsClient } from './ws-client.ts';

/** A second application on the first one's database, listening on its own port. */
async function secondInstance(first: TestServer): Promise<{ baseUrl: string; close: () => Promise<void> }> {
  const server = await createServer(first.config);
  const { app } = server;
  await app.http.listen({ port: 0, host: '127.0.0.1' });
  const address = app.http.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    close: () => server.close(),
  };
}

t.test(
  'a subscriber on instance A receives posts and comments created through instance B',
  { skip: onPostgres ? false : 'needs PostgreSQL: in-memory PGlite cannot be shared by two instances (run `npm run test:suite`)' },
  async (t) => {
    const a = await sharedServer();
    const b = await secondInstance(a);
    try {
      const s = seed(a);
      const alice = await s.user('alice');
      const bob = await s.user('bob');
      const aliceOnB = await a.token(alice.id);
      const createOnB = (title: string, token: string) =>
        gql(b, 'mutation($t: String!) { createPost(input: { title: $t, content: "c", status: PUBLISHED }) { id } }', { t: title }, token);

      const posts = record(wsClient(t, a.baseUrl), 'subscription($a: ID) { postCreated(authorId: $a) { id title author { id } } }', {
        a: alice.id,
      });
      const postProbes = await primed(posts, () => createOnB('probe', aliceOnB));
      await createOnB('By bob', await a.token(bob.id));
      const created = await createOnB('By alice via B', aliceOnB);
      await posts.until((r) => r.length >= postProbes + 1);
      await sleep(300);
      t.same(
        posts.results.slice(postProbes).map((r) => r.data?.postCreated),
        [{ id: created.body.data.createPost.id, title: 'By alice via B', author: { id: alice.id } }],
      );

      const watched = created.body.data.createPost.id;
      const other = (await createOnB('Other', aliceOnB)).body.data.createPost.id;
      const comments = record(wsClient(t, a.baseUrl), 'subscription($p: ID!) { commentAdded(postId: $p) { content post { id } } }', {
        p: watched,
      });
      const addOnB = (postId: string, content: string) =>
        gql(b, 'mutation($p: ID!, $c: String!) { addComment(postId: $p, content: $c) { id } }', { p: postId, c: content }, aliceOnB);
      const commentProbes = await primed(comments, () => addOnB(watched, 'probe'));
      await addOnB(other, 'not for you');
      await addOnB(watched, 'for you');
      await comments.until((r) => r.length >= commentProbes + 1);
      await sleep(300);
      t.same(
        comments.results.slice(commentProbes).map((r) => r.data?.commentAdded),
        [{ content: 'for you', post: { id: watched } }],
      );
    } finally {
      await b.close();
    }
  },
);
