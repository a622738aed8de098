import type { PostsRow } from '../../generated/db/types.ts';
import type { StrictResolversOf } from '../../generated/graphql/resolvers.ts';
import { requirePrincipal } from '../graphql/context.ts';
import type { ContentContext } from './content.context.ts';
import type { ContentEvent, PostCreatedEvent } from './content.events.ts';
import { columnResolvers, FIELD_COLUMNS } from './field-columns.ts';
import { userNotFound } from '../users/users.service.ts';
import { DEFAULT_NESTED_SIZE } from './argument-defaults.ts';
import { toConnection } from './users.resolvers.ts';

/** The event stream of a subscription; only the WebSocket transport provides one. */
export function eventsOf(context: ContentContext) {
  if (!context.events) throw new Error('subscriptions are served over WebSocket only');
  return context.events;
}

/**
 * graphql-js runs every event of a subscription with the same context, so the loaders created when
 * the client subscribed would serve stale counts and pages: each event gets its own set. Events of
 * one subscription are executed one after another, so replacing them here is safe.
 */
export function freshLoaders(context: ContentContext): void {
  context.loaders = context.services.contentLoaders.forRequest(context.principal);
}

/**
 * The resolvers of schema/posts.graphql, declared with its generated type: a field added there
 * without a resolver fails to compile here, at its type's entry.
 */
export const postsResolvers: StrictResolversOf<'posts'> = {
  Query: {
    post: (_parent, { id }, { services, principal }) => services.posts.read(principal, id),
  },
  Mutation: {
    createPost: (_parent, { input }, context) => context.services.posts.create(requirePrincipal(context), input),
    updatePost: (_parent, { id, input }, context) => context.services.posts.update(requirePrincipal(context), id, input),
    publishPost: (_parent, { id }, context) => context.services.posts.transition(requirePrincipal(context), id, 'publish'),
    archivePost: (_parent, { id }, context) => context.services.posts.transition(requirePrincipal(context), id, 'archive'),
    restorePost: (_parent, { id }, context) => context.services.posts.transition(requirePrincipal(context), id, 'restore'),
    likePost: (_parent, { postId }, context) => context.services.posts.like(requirePrincipal(context), postId),
    unlikePost: (_parent, { postId }, context) => context.services.posts.unlike(requirePrincipal(context), postId),
  },
  Subscription: {
    postCreated: {
      subscribe: (_parent, { authorId }, context) =>
        eventsOf(context).subscribe(
          (event: ContentEvent): event is PostCreatedEvent =>
            event.type === 'postCreated' && (authorId == null || event.authorId === authorId),
        ),
      resolve: async (event: PostCreatedEvent, _args: unknown, context: ContentContext) => {
        freshLoaders(context);
        // Read as the subscriber, at delivery: deleted since the commit (its author was removed) or
        // no longer readable (archived, restored to a draft) is NOT_FOUND, as `post(id)` would say.
        return context.services.posts.getReadable(context.principal, event.postId);
      },
    },
  },
  Post: {
    ...columnResolvers<PostsRow, typeof FIELD_COLUMNS.Post>(FIELD_COLUMNS.Post),
    author: async (post, _args, { loaders }) => (await loaders.user.load(post.author_id)) ?? Promise.reject(userNotFound(post.author_id)),
    comments: async (post, { page, size }, { loaders }) =>
      toConnection(await loaders.commentsByPost(page ?? 0, size ?? DEFAULT_NESTED_SIZE).load(post.id)),
    tags: (post, _args, { loaders }) => loaders.tags.load(post.id),
    likeCount: (post, _args, { loaders }) => loaders.likeCount.load(post.id),
  },
};
