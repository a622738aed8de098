// test-suite: once (the SDL's directives decide)
/**
 * One test per row of the interface document's authorization table, over HTTP, asserting the exact
 * errorType, message and extensions. Rules live in the SDL (@authenticated, @hasRole).
 */
import t from 'tap';
import { sharedServer } from '../helpers/server.ts';
import { gql, seed } from './gql.ts';

const UNAUTHORIZED = { message: 'Authentication required', extensions: { errorType: 'UNAUTHORIZED' } };
const FORBIDDEN = { message: 'Access denied', extensions: { errorType: 'FORBIDDEN' } };

/** The error list stripped to what the table fixes: message and extensions, exactly. */
const exact = (errors: any[] | undefined) => errors?.map((e) => ({ message: e.message, extensions: e.extensions }));

t.test('authorization table over HTTP', async (t) => {
  const server = await sharedServer();
  const s = seed(server);
  const alice = await s.user('alice');
  const bob = await s.user('bob');
  const aliceToken = await server.token(alice.id);
  const adminToken = await server.token('root', ['ADMIN']);

  t.test('updateUser: only on yourself', async (t) => {
    const q = 'mutation($id: ID!) { updateUser(id: $id, input: { displayName: "X" }) { id displayName } }';
    const other = await gql(server, q, { id: bob.id }, aliceToken);
    t.equal(other.status, 200);
    t.same(other.body.data, null);
    t.same(exact(other.body.errors), [FORBIDDEN]);
    t.same(other.body.errors![0].path, ['updateUser']);
    const admin = await gql(server, q, { id: bob.id }, adminToken);
    t.same(exact(admin.body.errors), [FORBIDDEN], 'not even ADMIN edits another profile');
    const anonymous = await gql(server, q, { id: alice.id });
    t.same(exact(anonymous.body.errors), [UNAUTHORIZED]);
    const own = await gql(server, q, { id: alice.id }, aliceToken);
    t.same(own.body, { data: { updateUser: { id: alice.id, displayName: 'X' } } });
  });

  t.test('createPost: needs a principal, recorded as author', async (t) => {
    const q = 'mutation { createPost(input: { title: "T", content: "C" }) { author { id } } }';
    const anonymous = await gql(server, q);
    t.same(anonymous.body.data, null);
    t.same(exact(anonymous.body.errors), [UNAUTHORIZED]);
    const signedIn = await gql(server, q, undefined, aliceToken);
    t.same(signedIn.body, { data: { createPost: { author: { id: alice.id } } } });
  });

  t.test('addComment: needs a principal, recorded as author', async (t) => {
    const post = await s.post(bob.id, 'Commented');
    const q = 'mutation($p: ID!) { addComment(postId: $p, content: "hi") { author { id } } }';
    const anonymous = await gql(server, q, { p: String(post.id) });
    t.same(exact(anonymous.body.errors), [UNAUTHORIZED]);
    const signedIn = await gql(server, q, { p: String(post.id) }, aliceToken);
    t.same(signedIn.body, { data: { addComment: { author: { id: alice.id } } } });
  });

  t.test('deleteUser: requires ADMIN', async (t) => {
    const victim = await s.user('victim');
    const q = 'mutation($id: ID!) { deleteUser(id: $id) }';
    t.same(exact((await gql(server, q, { id: victim.id })).body.errors), [UNAUTHORIZED]);
    t.same(exact((await gql(server, q, { id: victim.id }, aliceToken)).body.errors), [FORBIDDEN]);
    t.same((await gql(server, q, { id: victim.id }, adminToken)).body, { data: { deleteUser: true } });
    const again = await gql(server, q, { id: victim.id }, adminToken);
    t.same(exact(again.body.errors), [
      { message: `User not found: ${victim.id}`, extensions: { errorType: 'NOT_FOUND', code: 'USER_NOT_FOUND' } },
    ]);
  });

  t.test('allUsers: requires ADMIN', async (t) => {
    const q = '{ allUsers { id } users { totalElements } }';
    const anonymous = await gql(server, q);
    t.same(exact(anonymous.body.errors), [UNAUTHORIZED]);
    const user = await gql(server, q, undefined, aliceToken);
    t.same(exact(user.body.errors), [FORBIDDEN]);
    t.same(user.body.data, null, 'allUsers is non-null, so the whole data is null');
    const admin = await gql(server, q, undefined, adminToken);
    t.equal(admin.body.data.allUsers.length, 2);
  });

  t.test('createUser, user, users, searchUsers: no principal needed', async (t) => {
    const r = await gql(
      server,
      'mutation { createUser(input: { username: "carol", email: "c@example.com", displayName: "C" }) { username } }',
    );
    t.same(r.body, { data: { createUser: { username: 'carol' } } });
    const reads = await gql(server, `{ user(id: "${alice.id}") { id } users { totalElements } searchUsers(query: "car") { username } }`);
    t.same(reads.body, { data: { user: { id: alice.id }, users: { totalElements: 3 }, searchUsers: [{ username: 'carol' }] } });
  });

  t.test('a present but invalid token is a GraphQL-shaped 401', async (t) => {
    const r = await gql(server, '{ users { totalElements } }', undefined, 'not-a-jwt');
    t.equal(r.status, 401);
    t.same(
      r.body.errors?.map((e: any) => e.extensions),
      [{ errorType: 'UNAUTHORIZED' }],
    );
  });

  t.test('authorization is checked before input constraints', async (t) => {
    const q = 'mutation { updateUser(id: "", input: { displayName: "" }) { id } }';
    t.same(exact((await gql(server, q)).body.errors), [UNAUTHORIZED]);
  });
});
