/** Posts: creation with unique slugs, the status lifecycle, edits, likes and counted reads. */
import type { PostsRow } from '../../generated/db/types.ts';
import { ADMIN, hasRole, type Principal } from '../auth/principal.ts';
import type { Database } from '../db/database.ts';
import { inTransaction, type Executor } from '../db/transaction.ts';
import { AppError, forbidden, isUniqueViolation, validationFailed } from '../errors.ts';
import { publishContentEvent } from './content.events.ts';
import { parseIntegerId } from './ids.ts';
import { nextStatus, invalidTransition, type PostTransition } from './post-status.ts';
import * as repo from './posts.repository.ts';
import { postNotFound } from './posts.repository.ts';
import { firstFreeSlug, slugify } from './slug.ts';
import * as tags from './tags.repository.ts';
import { requireUser } from '../users/users.repository.ts';
import { allows, readable, type Viewer } from './post-visibility.ts';

interface CreatePostCommand {
  title: string;
  content: string;
  tags?: readonly string[] | null;
  status?: string | null;
  metadata?: unknown;
}

/** Null or absent means "leave unchanged"; `tags` replaces the whole list. */
interface UpdatePostCommand {
  title?: string | null;
  content?: string | null;
  tags?: readonly string[] | null;
  metadata?: unknown;
}

export { postNotFound } from './posts.repository.ts';
export const postArchived = (id: number) => new AppError('VALIDATION', `Post is archived and read-only: ${id}`, 'POST_ARCHIVED');

/** Attempts at a slug before giving up: a clash means another instance took the same slug meanwhile. */
const SLUG_ATTEMPTS = 3;

/** Lower-cased, first occurrence kept: the stored form of a tag list. */
function normalizeTags(names: readonly string[]): string[] {
  return [...new Set(names.map((n) => n.toLowerCase()))];
}

export class PostsService {
  constructor(private readonly db: Database) {}

  /** The `post` query: one counted read of a post the viewer may read. */
  async read(viewer: Viewer, id: string): Promise<PostsRow> {
    const postId = parseIntegerId(id);
    const post = postId === null ? undefined : await repo.readPost(this.db, postId, readable(viewer));
    if (!post) throw postNotFound(id);
    return post;
  }

  /** A post `viewer` may read, without counting a view (subscriptions, comments, likes). */
  getReadable(viewer: Viewer, id: string | number, db: Executor = this.db): Promise<PostsRow> {
    return repo.requireReadablePost(db, viewer, id);
  }

  async create(actor: Principal, command: CreatePostCommand): Promise<PostsRow> {
    const status = command.status ?? 'DRAFT';
    if (status === 'ARCHIVED') throw validationFailed([{ field: ['status'], message: 'must be DRAFT or PUBLISHED' }]);
    const base = slugify(command.title);
    for (let attempt = 1; ; attempt++) {
      try {
        return await inTransaction(this.db, async (trx) => {
          await requireUser(trx, actor.userId);
          const post = await repo.insertPost(trx, {
            author_id: actor.userId,
            title: command.title,
            content: command.content,
            slug: firstFreeSlug(base, await repo.takenSlugs(trx, base)),
            status,
            published_at: status === 'PUBLISHED' ? new Date() : null,
            metadata: command.metadata ?? null,
          });
          await tags.setPostTags(trx, post.id, await tags.upsertTags(trx, normalizeTags(command.tags ?? [])));
          if (status === 'PUBLISHED') await publishContentEvent(trx, { type: 'postCreated', postId: post.id, authorId: post.author_id });
          return post;
        });
      } catch (error) {
        if (attempt < SLUG_ATTEMPTS && isUniqueViolation(error, 'posts_slug_key')) continue;
        throw error;
      }
    }
  }

  async update(actor: Principal, id: string, command: UpdatePostCommand): Promise<PostsRow> {
    return inTransaction(this.db, async (trx) => {
      const post = await this.lockForChange(trx, actor, id);
      if (post.status === 'ARCHIVED') throw invalidTransition('ARCHIVED', 'ARCHIVED');
      const changes: repo.PostChanges = {};
      if (command.title != null) changes.title = command.title;
      if (command.content != null) changes.content = command.content;
      if (command.metadata != null) changes.metadata = command.metadata;
      if (command.tags != null) await tags.setPostTags(trx, post.id, await tags.upsertTags(trx, normalizeTags(command.tags)));
      return repo.updatePost(trx, post.id, changes);
    });
  }

  /** publishPost / archivePost / restorePost. The first publication announces the post. */
  async transition(actor: Principal, id: string, transition: PostTransition): Promise<PostsRow> {
    return inTransaction(this.db, async (trx) => {
      const post = await this.lockForChange(trx, actor, id);
      const status = nextStatus(post.status, transition);
      const firstPublication = status === 'PUBLISHED' && post.published_at === null;
      const updated = await repo.updatePost(trx, post.id, firstPublication ? { status, published_at: new Date() } : { status });
      if (firstPublication) await publishContentEvent(trx, { type: 'postCreated', postId: post.id, authorId: post.author_id });
      return updated;
    });
  }

  async like(actor: Principal, postId: string): Promise<PostsRow> {
    return inTransaction(this.db, async (trx) => {
      const post = await this.getReadable(actor, postId, trx);
      await requireUser(trx, actor.userId);
      await repo.like(trx, post.id, actor.userId);
      return post;
    });
  }

  async unlike(actor: Principal, postId: string): Promise<PostsRow> {
    const post = await this.getReadable(actor, postId);
    await repo.unlike(this.db, post.id, actor.userId);
    return post;
  }

  /** Unreadable posts are NOT_FOUND (their existence is private); readable ones of others FORBIDDEN. */
  private async lockForChange(trx: Executor, actor: Principal, id: string): Promise<PostsRow> {
    const postId = parseIntegerId(id);
    const post = postId === null ? undefined : await repo.lockPost(trx, postId);
    if (!post || !allows(readable(actor), post)) throw postNotFound(id);
    if (post.author_id !== actor.userId && !hasRole(actor, ADMIN)) throw forbidden();
    return post;
  }
}
