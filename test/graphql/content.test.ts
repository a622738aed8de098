// test-suite: once (resolvers over services whose SQL is the same on both engines)
/** Every field and operation of the content schema resolved for real, over HTTP. */
import t from 'tap';
import { sharedServer } from '../helpers/server.ts';
import { gql, seed } from './gql.ts';

t.test('users: oldest account first, paged connections', async (t) => {
  const server = await sharedServer();
  const s = seed(server);
  const ids: string[] = [];
  for (const name of ['ann', 'bob', 'cyd']) ids.push((await s.user(name)).id);
  const page0 = await gql(server, '{ users(page: 0, size: 2) { content { id } totalElements totalPages hasNext } }');
  t.same(page0.body.data.users, { content: [{ id: ids[0] }, { id: ids[1] }], totalElements: 3, totalPages: 2, hasNext: true });
  const page1 = await gql(server, '{ users(page: 1, size: 2) { content { id } hasNext } }');
  t.same(page1.body.data.users, { content: [{ id: ids[2] }], hasNext: false });
  const defaults = await gql(server, '{ users(page: null, size: null) { content { id } totalPages } }');
  t.equal(defaults.body.data.users.content.length, 3, 'explicit null means the default');
  const all = await gql(server, '{ allUsers { id } }', undefined, await server.token('root', ['ADMIN']));
  t.same(
    all.body.data.allUsers.map((u: any) => u.id),
    ids,
  );
});

t.test('searchUsers ranks exact, prefix, word start, substring; case-insensitive', async (t) => {
  const server = await sharedServer();
  const s = seed(server);
  await s.user('xanna', 'Somebody');
  await s.user('annabel', 'Annabel Lee');
  await s.user('zed', 'Mary Ann');
  await s.user('ann', 'Ann');
  await s.user('joanna', 'Jo');
  await s.user('bob', 'Bob');
  const r = await gql(server, '{ searchUsers(query: "ANN") { username } }');
  t.same(
    r.body.data.searchUsers.map((u: any) => u.username),
    ['ann', 'annabel', 'zed', 'xanna', 'joanna'],
  );
  const limited = await gql(server, '{ searchUsers(query: "ann", limit: 2) { username } }');
  t.same(
    limited.body.data.searchUsers.map((u: any) => u.username),
    ['ann', 'annabel'],
  );
  const literal = await gql(server, '{ searchUsers(query: "%") { username } }');
  t.same(literal.body.data.searchUsers, [], '% is a plain character');
});

t.test('posts: slug, tags, views, likes, comments, replies, follows', async (t) => {
  const server = await sharedServer();
  const s = seed(server);
  const alice = await s.user('alice');
  const bob = await s.user('bob');
  const aliceToken = await server.token(alice.id);
  const bobToken = await server.token(bob.id);

  const create =
    'mutation($input: CreatePostInput!) { createPost(input: $input) { id slug status title tags { name postCount } author { id } viewCount likeCount createdAt updatedAt } }';
  const first = await gql(
    server,
    create,
    { input: { title: 'Héllo, GraphQL World!', content: 'x', tags: ['GraphQL', 'node', 'graphql'] } },
    aliceToken,
  );
  const post = first.body.data.createPost;
  t.match(post, { slug: 'hello-graphql-world', status: 'DRAFT', author: { id: alice.id }, viewCount: 0, likeCount: 0 });
  t.match(post.id, /^\d+$/, 'post ids are integers exposed as strings');
  t.same(
    post.tags,
    [
      { name: 'graphql', postCount: 1 },
      { name: 'node', postCount: 1 },
    ],
    'lower-cased, deduplicated, in the given order',
  );
  const second = await gql(
    server,
    create,
    { input: { title: 'Hello GraphQL world', content: 'y', status: 'PUBLISHED', tags: ['node'] } },
    aliceToken,
  );
  t.equal(second.body.data.createPost.slug, 'hello-graphql-world-2', 'slug unique');
  t.same(second.body.data.createPost.tags, [{ name: 'node', postCount: 2 }]);
  const third = await gql(server, create, { input: { title: '!!!', content: 'z', status: 'PUBLISHED' } }, aliceToken);
  t.equal(third.body.data.createPost.slug, 'post');

  const read = 'query($id: ID!) { post(id: $id) { id viewCount } }';
  const draftId = post.id;
  const publishedId = second.body.data.createPost.id;
  t.equal((await gql(server, read, { id: publishedId })).body.data.post.viewCount, 1, 'a read counts itself');
  t.equal((await gql(server, read, { id: publishedId })).body.data.post.viewCount, 2);
  const hidden = await gql(server, read, { id: draftId }, bobToken);
  t.same(hidden.body.data, { post: null }, 'a draft is invisible to others');
  t.match(hidden.body.errors, [{ message: `Post not found: ${draftId}`, extensions: { errorType: 'NOT_FOUND', code: 'POST_NOT_FOUND' } }]);
  t.equal((await gql(server, read, { id: draftId }, aliceToken)).body.data.post.viewCount, 1, 'visible to its author');
  t.equal((await gql(server, read, { id: draftId }, await server.token('root', ['ADMIN']))).body.data.post.viewCount, 2, 'and to ADMIN');
  t.match((await gql(server, read, { id: 'abc' })).body.errors, [
    { message: 'Post not found: abc', extensions: { errorType: 'NOT_FOUND' } },
  ]);

  const like = 'mutation($id: ID!) { likePost(postId: $id) { id likeCount } }';
  t.equal((await gql(server, like, { id: publishedId }, bobToken)).body.data.likePost.likeCount, 1);
  t.equal((await gql(server, like, { id: publishedId }, bobToken)).body.data.likePost.likeCount, 1, 'idempotent');
  t.equal((await gql(server, like, { id: publishedId }, aliceToken)).body.data.likePost.likeCount, 2);
  const unlike = 'mutation($id: ID!) { unlikePost(postId: $id) { likeCount } }';
  t.equal((await gql(server, unlike, { id: publishedId }, bobToken)).body.data.unlikePost.likeCount, 1);

  const comment = await gql(
    server,
    'mutation($p: ID!) { addComment(postId: $p, content: "First!") { id content author { id } post { id } parentComment { id } } }',
    { p: publishedId },
    bobToken,
  );
  const c = comment.body.data.addComment;
  t.match(c, { content: 'First!', author: { id: bob.id }, post: { id: publishedId }, parentComment: null });
  const reply = await gql(
    server,
    'mutation($c: ID!) { replyToComment(commentId: $c, content: "Thanks") { id parentComment { id } post { id } author { id } } }',
    { c: c.id },
    aliceToken,
  );
  t.match(reply.body.data.replyToComment, { parentComment: { id: c.id }, post: { id: publishedId }, author: { id: alice.id } });
  const missingParent = await gql(server, 'mutation { replyToComment(commentId: "999", content: "x") { id } }', undefined, aliceToken);
  t.match(missingParent.body.errors, [
    { message: 'Comment not found: 999', extensions: { errorType: 'NOT_FOUND', code: 'COMMENT_NOT_FOUND' } },
  ]);

  const thread = await gql(
    server,
    'query($id: ID!) { post(id: $id) { comments(size: 5) { totalElements totalPages hasNext content { id replies { id content } } } } }',
    { id: publishedId },
  );
  t.same(
    thread.body.data.post.comments,
    {
      totalElements: 1,
      totalPages: 1,
      hasNext: false,
      content: [{ id: c.id, replies: [{ id: reply.body.data.replyToComment.id, content: 'Thanks' }] }],
    },
    'top-level comments only; replies nested',
  );

  const follow = 'mutation($u: ID!) { followUser(userId: $u) { id followerCount followers { id } } }';
  t.same((await gql(server, follow, { u: alice.id }, bobToken)).body.data.followUser, {
    id: alice.id,
    followerCount: 1,
    followers: [{ id: bob.id }],
  });
  t.equal((await gql(server, follow, { u: alice.id }, bobToken)).body.data.followUser.followerCount, 1, 'idempotent');
  const self = await gql(server, follow, { u: bob.id }, bobToken);
  t.match(self.body.errors, [
    { message: 'Validation failed', extensions: { errorType: 'BAD_REQUEST', code: 'VALIDATION_ERROR', violations: [{ field: 'userId' }] } },
  ]);
  const profile = await gql(server, 'query($id: ID!) { user(id: $id) { following { id } posts { totalElements content { slug } } } }', {
    id: bob.id,
  });
  t.same(profile.body.data.user, { following: [{ id: alice.id }], posts: { totalElements: 0, content: [] } });
  const alicePosts = 'query($id: ID!) { user(id: $id) { posts(size: 2) { totalElements hasNext content { slug } } } }';
  t.same(
    (await gql(server, alicePosts, { id: alice.id })).body.data.user.posts,
    { totalElements: 2, hasNext: false, content: [{ slug: 'post' }, { slug: 'hello-graphql-world-2' }] },
    'others see published posts, newest first',
  );
  t.same(
    (await gql(server, alicePosts, { id: alice.id }, aliceToken)).body.data.user.posts.totalElements,
    3,
    'the author sees her draft too',
  );
  const unfollow = await gql(server, 'mutation($u: ID!) { unfollowUser(userId: $u) { followerCount } }', { u: alice.id }, bobToken);
  t.equal(unfollow.body.data.unfollowUser.followerCount, 0);

  const updated = await gql(
    server,
    'mutation($id: ID!) { updateUser(id: $id, input: { displayName: "Alice L.", bio: "hi", avatarUrl: "https://a.example/x.png" }) { displayName bio avatarUrl } }',
    { id: alice.id },
    aliceToken,
  );
  t.same(updated.body.data.updateUser, { displayName: 'Alice L.', bio: 'hi', avatarUrl: 'https://a.example/x.png' });
});

t.test('post lifecycle: DRAFT -> PUBLISHED -> ARCHIVED -> DRAFT; anything else is BAD_REQUEST', async (t) => {
  const server = await sharedServer();
  const s = seed(server);
  const alice = await s.user('alice');
  const bob = await s.user('bob');
  const token = await server.token(alice.id);
  const post = await s.post(alice.id, 'Life', { status: 'DRAFT' });
  const step = async (op: string) => gql(server, `mutation($id: ID!) { ${op}(id: $id) { status } }`, { id: String(post.id) }, token);
  const illegal = async (op: string, from: string, to: string) => {
    const r = await step(op);
    t.same(r.body.data, null, `${op} from ${from} refused`);
    t.match(r.body.errors, [
      {
        message: `Cannot change post status from ${from} to ${to}`,
        extensions: { errorType: 'BAD_REQUEST', code: 'INVALID_STATE_TRANSITION' },
      },
    ]);
  };
  await illegal('restorePost', 'DRAFT', 'DRAFT');
  t.equal((await step('publishPost')).body.data.publishPost.status, 'PUBLISHED');
  await illegal('publishPost', 'PUBLISHED', 'PUBLISHED');
  await illegal('restorePost', 'PUBLISHED', 'DRAFT');
  t.equal((await step('archivePost')).body.data.archivePost.status, 'ARCHIVED');
  await illegal('archivePost', 'ARCHIVED', 'ARCHIVED');
  await illegal('publishPost', 'ARCHIVED', 'PUBLISHED');
  const edit = await gql(
    server,
    'mutation($id: ID!) { updatePost(id: $id, input: { title: "New" }) { title } }',
    { id: String(post.id) },
    token,
  );
  t.match(
    edit.body.errors,
    [{ extensions: { errorType: 'BAD_REQUEST', code: 'INVALID_STATE_TRANSITION' } }],
    'archived posts are read-only',
  );
  const comment = await gql(
    server,
    'mutation($id: ID!) { addComment(postId: $id, content: "late") { id } }',
    { id: String(post.id) },
    await server.token(bob.id),
  );
  t.match(comment.body.errors, [{ extensions: { errorType: 'BAD_REQUEST', code: 'POST_ARCHIVED' } }]);
  t.equal((await step('restorePost')).body.data.restorePost.status, 'DRAFT');
  const edited = await gql(
    server,
    'mutation($id: ID!) { updatePost(id: $id, input: { title: "New", tags: ["a", "B"] }) { title slug tags { name } updatedAt createdAt } }',
    { id: String(post.id) },
    token,
  );
  t.match(
    edited.body.data.updatePost,
    { title: 'New', slug: 'life', tags: [{ name: 'a' }, { name: 'b' }] },
    'slug kept when the title changes',
  );
  t.not(edited.body.data.updatePost.updatedAt, edited.body.data.updatePost.createdAt);
  const archivedAtCreation = await gql(
    server,
    'mutation { createPost(input: { title: "t", content: "c", status: ARCHIVED }) { id } }',
    undefined,
    token,
  );
  t.match(archivedAtCreation.body.errors, [
    { extensions: { errorType: 'BAD_REQUEST', code: 'VALIDATION_ERROR', violations: [{ field: 'input.status' }] } },
  ]);
  const others = await gql(
    server,
    'mutation($id: ID!) { publishPost(id: $id) { status } }',
    { id: String(post.id) },
    await server.token(bob.id),
  );
  t.match(
    others.body.errors,
    [{ message: `Post not found: ${post.id}`, extensions: { errorType: 'NOT_FOUND' } }],
    "someone else's draft does not exist for bob",
  );
  const published = await s.post(alice.id, 'Public');
  const forbidden = await gql(
    server,
    'mutation($id: ID!) { archivePost(id: $id) { status } }',
    { id: String(published.id) },
    await server.token(bob.id),
  );
  t.same(
    forbidden.body.errors?.map((e: any) => [e.message, e.extensions]),
    [['Access denied', { errorType: 'FORBIDDEN' }]],
  );
  const admin = await gql(
    server,
    'mutation($id: ID!) { archivePost(id: $id) { status } }',
    { id: String(published.id) },
    await server.token('root', ['ADMIN']),
  );
  t.equal(admin.body.data.archivePost.status, 'ARCHIVED', 'ADMIN may manage any post');
});
