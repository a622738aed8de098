// test-suite: once (the SDK's typed documents against the transport)
/**
 * The client SDK's typed documents (generated/client/graphql.ts, from schema/operations/) drive the
 * live server: every operation once, results typed by the operation, one subscription over graphql-ws.
 */
import { print } from 'graphql';
import t from 'tap';
import {
  AddCommentDocument,
  AllUsersDocument,
  ArchivePostDocument,
  CreatePostDocument,
  CreateUserDocument,
  DeleteUserDocument,
  FollowUserDocument,
  GetPostDocument,
  GetUserDocument,
  LikePostDocument,
  ListUsersDocument,
  OnCommentAddedDocument,
  OnPostCreatedDocument,
  PublishPostDocument,
  ReplyToCommentDocument,
  RestorePostDocument,
  SearchUsersDocument,
  UnfollowUserDocument,
  UnlikePostDocument,
  UpdatePostDocument,
  UpdateUserDocument,
  type OnCommentAddedSubscription,
  type OnPostCreatedSubscription,
} from '../../generated/client/graphql.ts';
import { sharedServer } from '../helpers/server.ts';
import { typed } from './gql.ts';
import { primed, record, wsClient } from './ws-client.ts';

t.test('every client operation against the live server', async (t) => {
  const server = await sharedServer();
  const alice = (
    await typed(server, CreateUserDocument, { input: { username: 'alice', email: 'alice@example.com', displayName: 'Alice' } })
  ).body.data!.createUser;
  const bob = (
    await typed(server, CreateUserDocument, { input: { username: 'bob', email: 'bob@example.com', displayName: 'Bob', bio: 'b' } })
  ).body.data!.createUser;
  t.match(alice, { username: 'alice', followerCount: 0, bio: null });
  const aliceToken = await server.token(alice.id);
  const bobToken = await server.token(bob.id);

  const posts = record(wsClient(t, server.baseUrl), print(OnPostCreatedDocument), { authorId: alice.id });
  const draft = (await typed(server, CreatePostDocument, { input: { title: 'Typed', content: 'Body', tags: ['TS'] } }, aliceToken)).body
    .data!.createPost;
  t.match(draft, { slug: 'typed', status: 'DRAFT', tags: [{ name: 'ts', postCount: 1 }], author: { id: alice.id } });
  // Probes made before the subscription was live are not delivered: count what was created.
  let probePosts = 0;
  const probes = await primed(posts, async () => {
    probePosts++;
    return typed(server, CreatePostDocument, { input: { title: 'probe', content: 'p', status: 'PUBLISHED' } }, aliceToken);
  });
  const edited = (await typed(server, UpdatePostDocument, { id: draft.id, input: { content: 'Edited' } }, aliceToken)).body.data!
    .updatePost;
  t.equal(edited.content, 'Edited');
  const published = (await typed(server, PublishPostDocument, { id: draft.id }, aliceToken)).body.data!.publishPost;
  t.equal(published.status, 'PUBLISHED');
  await posts.until((r) => r.length > probes);
  const event = posts.results[probes]!.data as OnPostCreatedSubscription;
  t.match(
    event.postCreated,
    { id: draft.id, title: 'Typed', status: 'PUBLISHED', author: { username: 'alice' } },
    'typed subscription result',
  );

  const comments = record(wsClient(t, server.baseUrl, bobToken), print(OnCommentAddedDocument), { postId: draft.id });
  let probeComments = 0;
  const commentProbes = await primed(comments, () => {
    probeComments++;
    return typed(server, AddCommentDocument, { postId: draft.id, content: 'probe' }, bobToken);
  });
  const comment = (await typed(server, AddCommentDocument, { postId: draft.id, content: 'Hello' }, bobToken)).body.data!.addComment;
  const reply = (await typed(server, ReplyToCommentDocument, { commentId: comment.id, content: 'Hi' }, aliceToken)).body.data!
    .replyToComment;
  t.same(reply.parentComment, { id: comment.id });
  await comments.until((r) => r.length >= commentProbes + 2);
  const delivered = comments.results.slice(commentProbes).map((r) => (r.data as OnCommentAddedSubscription).commentAdded);
  t.same(
    delivered.map((c) => [c.content, c.parentComment?.id ?? null, c.post.id]),
    [
      ['Hello', null, draft.id],
      ['Hi', comment.id, draft.id],
    ],
  );

  t.equal((await typed(server, LikePostDocument, { postId: draft.id }, bobToken)).body.data!.likePost.likeCount, 1);
  t.equal((await typed(server, UnlikePostDocument, { postId: draft.id }, bobToken)).body.data!.unlikePost.likeCount, 0);
  const read = (await typed(server, GetPostDocument, { id: draft.id, commentsSize: 1 })).body.data!.post!;
  t.match(read, { viewCount: 1, comments: { totalElements: probeComments + 1, hasNext: true } }, 'probes and Hello; the reply is nested');
  t.equal((await typed(server, ArchivePostDocument, { id: draft.id }, aliceToken)).body.data!.archivePost.status, 'ARCHIVED');
  t.equal((await typed(server, RestorePostDocument, { id: draft.id }, aliceToken)).body.data!.restorePost.status, 'DRAFT');

  t.equal((await typed(server, FollowUserDocument, { userId: alice.id }, bobToken)).body.data!.followUser.followerCount, 1);
  t.equal((await typed(server, UnfollowUserDocument, { userId: alice.id }, bobToken)).body.data!.unfollowUser.followerCount, 0);
  const profile = (await typed(server, GetUserDocument, { id: alice.id, postsSize: 5 }, aliceToken)).body.data!.user!;
  t.match(
    profile,
    { username: 'alice', posts: { totalElements: probePosts + 1, hasNext: probePosts + 1 > 5 } },
    'the probes and the draft',
  );
  t.same((await typed(server, ListUsersDocument, { size: 1 })).body.data!.users, {
    content: [{ id: alice.id, username: 'alice', displayName: 'Alice', avatarUrl: null }],
    totalElements: 2,
    hasNext: true,
  });
  t.same(
    (await typed(server, SearchUsersDocument, { query: 'BO' })).body.data!.searchUsers.map((u) => u.username),
    ['bob'],
  );
  const updated = (await typed(server, UpdateUserDocument, { id: bob.id, input: { bio: '' } }, bobToken)).body.data!.updateUser;
  t.equal(updated.bio, null, 'an empty bio clears it');
  const adminToken = await server.token('root', ['ADMIN']);
  t.equal((await typed(server, AllUsersDocument, {}, adminToken)).body.data!.allUsers.length, 2);
  t.equal((await typed(server, DeleteUserDocument, { id: bob.id }, adminToken)).body.data!.deleteUser, true);
  t.equal((await typed(server, AllUsersDocument, {}, adminToken)).body.data!.allUsers.length, 1);
});
