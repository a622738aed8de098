// test-suite: once (the directory rules are SQL predicates, the same text on both engines)
/**
 * Deactivated accounts (active = false, as SCIM provisioning will set them): found by id and as
 * authors, so their content keeps its author; left out of every list of users and of follower
 * counts; not followable. The follow rows themselves stay, so reactivation restores them.
 */
import t from 'tap';
import { sharedServer } from '../helpers/server.ts';
import { gql, seed } from './gql.ts';

t.test('a deactivated account is found by id, and no list shows it', async (t) => {
  const server = await sharedServer();
  const s = seed(server);
  const [alice, bob, carol] = [await s.user('alice', 'Alice Liddell'), await s.user('bob', 'Bob Alison'), await s.user('carol')];
  const post = await s.post(bob.id, 'Written before leaving');
  await s.comment(bob.id, post.id, 'Me again');
  await s.follow(bob.id, alice.id);
  await s.follow(carol.id, alice.id);
  await s.follow(alice.id, bob.id);
  await s.follow(alice.id, carol.id);

  const setActive = (active: boolean) => server.database.db.updateTable('users').set({ active }).where('id', '=', bob.id).execute();
  const admin = await server.token('root', ['ADMIN']);
  const aliceView = `query($id: ID!) { user(id: $id) { followerCount followers { id } following { id } } }`;
  const lists = async () => ({
    users: (await gql(server, '{ users(size: 10) { totalElements content { id } } }')).body.data.users,
    search: (await gql(server, '{ searchUsers(query: "ali") { id } }')).body.data.searchUsers.map((u: { id: string }) => u.id),
    all: (await gql(server, '{ allUsers { id } }', undefined, admin)).body.data.allUsers.map((u: { id: string }) => u.id),
    alice: (await gql(server, aliceView, { id: alice.id })).body.data.user,
  });

  const before = await lists();
  t.equal(before.users.totalElements, 3);
  t.same(new Set(before.search), new Set([alice.id, bob.id]), 'both match "ali" while active');
  t.equal(before.alice.followerCount, 2);

  await setActive(false);
  const after = await lists();
  t.same(after.users, { totalElements: 2, content: [{ id: alice.id }, { id: carol.id }] }, 'users: left out, and not counted');
  t.same(after.search, [alice.id], 'searchUsers: left out');
  t.same(after.all, [alice.id, carol.id], 'allUsers: left out');
  t.same(
    after.alice,
    { followerCount: 1, followers: [{ id: carol.id }], following: [{ id: carol.id }] },
    'followers, following and the count agree',
  );

  const byId = await gql(server, 'query($id: ID!) { user(id: $id) { id username } }', { id: bob.id });
  t.same(byId.body, { data: { user: { id: bob.id, username: 'bob' } } }, 'user(id) still finds the account');
  const content = await gql(server, 'query($id: ID!) { post(id: $id) { author { id } comments { content { author { id } } } } }', {
    id: String(post.id),
  });
  t.same(
    content.body,
    { data: { post: { author: { id: bob.id }, comments: { content: [{ author: { id: bob.id } }] } } } },
    'its post and comment keep their author',
  );

  const follow = await gql(server, 'mutation($id: ID!) { followUser(userId: $id) { id } }', { id: bob.id }, await server.token(carol.id));
  t.equal(follow.body.data, null);
  t.match(follow.body.errors, [
    {
      message: 'Validation failed',
      extensions: {
        errorType: 'BAD_REQUEST',
        code: 'VALIDATION_ERROR',
        violations: [{ field: 'userId', message: 'this account is deactivated' }],
      },
    },
  ]);
  t.equal(
    await server.database.db
      .selectFrom('follows')
      .where('follower_id', '=', carol.id)
      .where('followee_id', '=', bob.id)
      .select('follower_id')
      .executeTakeFirst(),
    undefined,
    'no follow row written',
  );

  await setActive(true);
  t.same(await lists(), before, 'reactivation brings back every list as it was, follows included');
});
