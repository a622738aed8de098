/** Comments and replies on readable, non-archived posts; each one is announced to subscribers. */
import type { CommentsRow, PostsRow } from '../../generated/db/types.ts';
import type { Principal } from '../auth/principal.ts';
import type { Database } from '../db/database.ts';
import { inTransaction, type Executor } from '../db/transaction.ts';
import { notFound } from '../errors.ts';
import * as repo from './comments.repository.ts';
import { publishContentEvent } from './content.events.ts';
import { findPostById, requireReadablePost } from './posts.repository.ts';
import { parseIntegerId } from './ids.ts';
import { postArchived } from './posts.service.ts';
import { requireUser } from '../users/users.repository.ts';
import { allows, readable } from './post-visibility.ts';

export const commentNotFound = (id: string) => notFound(`Comment not found: ${id}`, 'COMMENT_NOT_FOUND');

export class CommentsService {
  constructor(private readonly db: Database) {}

  async add(actor: Principal, postId: string, content: string): Promise<CommentsRow> {
    return inTransaction(this.db, async (trx) => {
      const post = await requireReadablePost(trx, actor, postId);
      return this.insert(trx, actor, post, null, content);
    });
  }

  async reply(actor: Principal, commentId: string, content: string): Promise<CommentsRow> {
    return inTransaction(this.db, async (trx) => {
      const id = parseIntegerId(commentId);
      const [parent] = id === null ? [] : await repo.findCommentsByIds(trx, [id]);
      const post = parent ? await findPostById(trx, parent.post_id) : undefined;
      if (!parent || !post || !allows(readable(actor), post)) throw commentNotFound(commentId);
      return this.insert(trx, actor, post, parent.id, content);
    });
  }

  private async insert(trx: Executor, actor: Principal, post: PostsRow, parentId: number | null, content: string): Promise<CommentsRow> {
    if (post.status === 'ARCHIVED') throw postArchived(post.id);
    await requireUser(trx, actor.userId);
    const comment = await repo.insertComment(trx, { post_id: post.id, author_id: actor.userId, parent_id: parentId, content });
    await publishContentEvent(trx, { type: 'commentAdded', commentId: comment.id, postId: post.id });
    return comment;
  }
}
