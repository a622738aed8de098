import type { CommentsRow } from '../../generated/db/types.ts';
import type { StrictResolversOf } from '../../generated/graphql/resolvers.ts';
import { requirePrincipal } from '../graphql/context.ts';
import type { ContentContext } from './content.context.ts';
import { commentNotFound } from './comments.service.ts';
import type { CommentAddedEvent, ContentEvent } from './content.events.ts';
import { postNotFound } from './posts.service.ts';
import { columnResolvers, FIELD_COLUMNS } from './field-columns.ts';
import { eventsOf, freshLoaders } from './posts.resolvers.ts';
import { DEFAULT_LIST_LIMIT } from './argument-defaults.ts';
import { userNotFound } from '../users/users.service.ts';

/**
 * The resolvers of schema/comments.graphql, declared with its generated type: a field added there
 * without a resolver fails to compile here, at its type's entry.
 */
export const commentsResolvers: StrictResolversOf<'comments'> = {
  Mutation: {
    addComment: (_parent, { postId, content }, context) => context.services.comments.add(requirePrincipal(context), postId, content),
    replyToComment: (_parent, { commentId, content }, context) =>
      context.services.comments.reply(requirePrincipal(context), commentId, content),
  },
  Subscription: {
    commentAdded: {
      subscribe: async (_parent, { postId }, context) => {
        // Listen first, then check the post: a comment committed in between is not lost.
        const events = eventsOf(context).subscribe(
          (event: ContentEvent): event is CommentAddedEvent => event.type === 'commentAdded' && String(event.postId) === postId,
        );
        try {
          await context.services.posts.getReadable(context.principal, postId);
        } catch (error) {
          await events.return?.();
          throw error;
        }
        return events;
      },
      resolve: async (event: CommentAddedEvent, _args: unknown, context: ContentContext) => {
        freshLoaders(context);
        // The post may have become unreadable since the subscription started (archived, then
        // restored to a draft by its author): its comments are then as private as the post.
        await context.services.posts.getReadable(context.principal, event.postId);
        const comment = await context.loaders.comment.load(event.commentId);
        if (!comment) throw commentNotFound(String(event.commentId));
        return comment;
      },
    },
  },
  Comment: {
    ...columnResolvers<CommentsRow, typeof FIELD_COLUMNS.Comment>(FIELD_COLUMNS.Comment),
    author: async (comment, _args, { loaders }) =>
      (await loaders.user.load(comment.author_id)) ?? Promise.reject(userNotFound(comment.author_id)),
    // `post: Post!` cannot be null: a post the viewer may not read is a NOT_FOUND error, as for
    // `post(id)`, and the comment itself resolves to null with it.
    post: async (comment, _args, { loaders }) =>
      (await loaders.post.load(comment.post_id)) ?? Promise.reject(postNotFound(comment.post_id)),
    parentComment: (comment, _args, { loaders }) => (comment.parent_id === null ? null : loaders.comment.load(comment.parent_id)),
    replies: (comment, { limit }, { loaders }) => loaders.replies(limit ?? DEFAULT_LIST_LIMIT).load(comment.id),
  },
};
