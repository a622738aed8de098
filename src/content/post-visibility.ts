/**
 * Which posts a viewer may see: the one place the rule is written. Two named policies, each a list
 * of disjoint branches (a set of statuses, optionally of one author). The SQL filter, the seek
 * branches and the in-memory check are all derived from the same branches, so they cannot disagree.
 *
 * - `readable`: may this viewer open this post? PUBLISHED and ARCHIVED posts are readable by
 *   everyone (ARCHIVED is retired, not private: links to it keep working); a DRAFT only by its
 *   author and ADMIN (who may manage any post). Used by `post(id)`, `Comment.post`, every mutation
 *   that names a post, both subscriptions, and `User.posts`, which is one author's catalogue: exactly
 *   the posts of that author the viewer could open by id (schema/users.graphql).
 * - `listed`: which posts appear in the site-wide streams, `/posts` in every form and `/feed`?
 *   PUBLISHED posts, plus the caller's own DRAFTs (a writer checks a draft in context before
 *   publishing it). ARCHIVED posts are not listed (retired from the streams), and ADMIN gets no
 *   other author's drafts there: a stream is what readers see, not a moderation queue
 *   (openapi/posts.yaml, "Visibility"). Every listed post is readable.
 *
 * Anything not readable is reported as absent (NOT_FOUND), so its existence stays private.
 */
import type { Expression, ExpressionBuilder, SqlBool } from 'kysely';
import type { DB } from '../../generated/db/types.ts';
import { ADMIN, hasRole, type Principal } from '../auth/principal.ts';
import { POST_STATUSES, type PostStatus } from './post-status.ts';

export type Viewer = Principal | null;

/** Posts whose status is one of `statuses` and, when `authorId` is set, written by that author. */
export interface VisibilityBranch {
  readonly statuses: readonly PostStatus[];
  readonly authorId?: string;
}

/** A policy applied to one viewer: disjoint branches (no post matches two), at least one. */
export type PostVisibility = readonly [VisibilityBranch, ...VisibilityBranch[]];

const ownDrafts = (viewer: Principal): VisibilityBranch => ({ statuses: ['DRAFT'], authorId: viewer.userId });

export function readable(viewer: Viewer): PostVisibility {
  if (hasRole(viewer, ADMIN)) return [{ statuses: POST_STATUSES }];
  const everyone: VisibilityBranch = { statuses: ['PUBLISHED', 'ARCHIVED'] };
  return viewer ? [everyone, ownDrafts(viewer)] : [everyone];
}

export function listed(viewer: Viewer): PostVisibility {
  const published: VisibilityBranch = { statuses: ['PUBLISHED'] };
  return viewer ? [published, ownDrafts(viewer)] : [published];
}

/** The in-memory form: whether `post` falls in one of the branches. */
export function allows(visibility: PostVisibility, post: { status: string; author_id: string }): boolean {
  return visibility.some(
    (branch) =>
      branch.statuses.some((status) => status === post.status) && (branch.authorId === undefined || branch.authorId === post.author_id),
  );
}

/**
 * One branch as a `where` condition on `posts`. A single status is an equality, so the partial index
 * on drafts and the (status, created_at, id) index both match it.
 */
export function branchCondition(branch: VisibilityBranch) {
  return (eb: ExpressionBuilder<DB, 'posts'>): Expression<SqlBool> => {
    const conditions: Expression<SqlBool>[] = [];
    const [only, ...more] = branch.statuses;
    if (only === undefined) return eb.lit(false);
    if (branch.statuses.length < POST_STATUSES.length) {
      conditions.push(more.length ? eb('posts.status', 'in', branch.statuses) : eb('posts.status', '=', only));
    }
    if (branch.authorId !== undefined) conditions.push(eb('posts.author_id', '=', branch.authorId));
    return conditions.length ? eb.and(conditions) : eb.lit(true);
  };
}

/**
 * The whole policy as one `where` condition (an OR of the branches), for queries that filter rather
 * than seek: offset pages, counts, lookups by id and the per-author pages. Seek queries read each
 * branch separately instead (see post-lists.repository.ts).
 */
export function visibilityCondition(visibility: PostVisibility) {
  return (eb: ExpressionBuilder<DB, 'posts'>): Expression<SqlBool> => {
    const conditions = visibility.map((branch) => branchCondition(branch)(eb));
    return conditions.length === 1 ? conditions[0]! : eb.or(conditions);
  };
}
