/**
 * Who is reading, for visibility rules: a DRAFT post is visible only to its author and ADMIN. Every
 * read that can reach a post goes through `visiblePosts`, so no query can forget the rule.
 */
import type { ExpressionBuilder } from 'kysely';
import { ADMIN, hasRole, type Principal } from '../auth/principal.ts';
import type { DB } from '../../generated/db/types.ts';

export type Viewer = Principal | null;

export function seesAllDrafts(viewer: Viewer): boolean {
  return hasRole(viewer, ADMIN);
}

export function canSee(viewer: Viewer, post: { status: string; author_id: string }): boolean {
  return post.status !== 'DRAFT' || seesAllDrafts(viewer) || viewer?.username === post.author_id;
}

/** `where` filter on `posts`: the rows `viewer` may see. */
export function visiblePosts(viewer: Viewer) {
  return (eb: ExpressionBuilder<DB, 'posts'>) => {
    if (seesAllDrafts(viewer)) return eb.lit(true);
    const published = eb('posts.status', '<>', 'DRAFT');
    return viewer ? eb.or([published, eb('posts.author_id', '=', viewer.username)]) : published;
  };
}
