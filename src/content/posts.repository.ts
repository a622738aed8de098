import { sql } from 'kysely';
import type { NewPostsRow, PostsRow, PostsRowChanges } from '../../generated/db/types.ts';
import type { Executor } from '../db/transaction.ts';
import { notFound } from '../errors.ts';
import { parseIntegerId } from './ids.ts';
import { allows, readable, visibilityCondition, type PostVisibility, type Viewer } from './post-visibility.ts';

/** `metadata`: any JSON value, stored as JSON whatever its shape (jsonValue). */
type NewPost = NewPostsRow;

/**
 * What an edit or a transition changes: not the id, author, slug (the post's address) or creation
 * time, fixed once the post exists; not `view_count`, counted by readPost alone; not `updated_at`,
 * which updatePost sets.
 */
export type PostChanges = Omit<PostsRowChanges, 'id' | 'author_id' | 'slug' | 'created_at' | 'view_count' | 'updated_at'>;

/**
 * The JSON text of a metadata value, cast in SQL. Drivers would otherwise send a JS array as a
 * PostgreSQL array literal and a string as plain text, not as JSON.
 */
function jsonValue(value: unknown) {
  return sql`${JSON.stringify(value)}::json`;
}

/** A row of a page computed per parent in one statement: its rank and the parent's total. */
export type Ranked<T> = T & { rn: number; total: number };

export const postNotFound = (id: string | number) => notFound(`Post not found: ${id}`, 'POST_NOT_FOUND');

/**
 * A post `viewer` may read, without counting a view, or POST_NOT_FOUND (an unreadable post's
 * existence stays private): what every mutation, comment and subscription naming a post reads first.
 */
export async function requireReadablePost(db: Executor, viewer: Viewer, id: string | number): Promise<PostsRow> {
  const postId = typeof id === 'number' ? id : parseIntegerId(id);
  const post = postId === null ? undefined : await findPostById(db, postId);
  if (!post || !allows(readable(viewer), post)) throw postNotFound(id);
  return post;
}

export function findPostById(db: Executor, id: number): Promise<PostsRow | undefined> {
  return db.selectFrom('posts').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The posts among `ids` that `visibility` allows; the others are left out as if absent. */
export function findPostsByIds(db: Executor, ids: readonly number[], visibility: PostVisibility): Promise<PostsRow[]> {
  return db.selectFrom('posts').selectAll().where('id', 'in', ids).where(visibilityCondition(visibility)).execute();
}

/** Counts one read and returns the post, in one statement; undefined when absent or not allowed. */
export function readPost(db: Executor, id: number, visibility: PostVisibility): Promise<PostsRow | undefined> {
  return db
    .updateTable('posts')
    .set({ view_count: sql`view_count + 1` })
    .where('id', '=', id)
    .where(visibilityCondition(visibility))
    .returningAll()
    .executeTakeFirst();
}

/**
 * One page of posts for each author, newest first, in one statement: the window numbers each
 * author's posts that `visibility` allows and counts them. Rank 1 is always kept so an author whose page is past the
 * end still reports a total; the caller drops rows outside the page.
 */
export function pagePostsByAuthors(
  db: Executor,
  authorIds: readonly string[],
  visibility: PostVisibility,
  offset: number,
  limit: number,
): Promise<Ranked<PostsRow>[]> {
  const ranked = db
    .selectFrom('posts')
    .selectAll('posts')
    .select([
      sql<number>`row_number() over (partition by author_id order by created_at desc, id desc)`.as('rn'),
      sql<number>`count(*) over (partition by author_id)`.as('total'),
    ])
    .where('author_id', 'in', authorIds)
    .where(visibilityCondition(visibility));
  return db
    .selectFrom(ranked.as('t'))
    .selectAll()
    .where((eb) => eb.or([eb('rn', '=', 1), eb.and([eb('rn', '>', offset), eb('rn', '<=', offset + limit)])]))
    .orderBy('author_id')
    .orderBy('rn')
    .execute();
}

/** Slugs already taken among `base` and `base-<n>`: the service picks the first free one. */
export async function takenSlugs(db: Executor, base: string): Promise<Set<string>> {
  const rows = await db
    .selectFrom('posts')
    .select('slug')
    .where((eb) => eb.or([eb('slug', '=', base), eb('slug', 'like', `${base}-%`)]))
    .execute();
  return new Set(rows.map((r) => r.slug));
}

export function insertPost(db: Executor, post: NewPost): Promise<PostsRow> {
  const { metadata, ...columns } = post;
  return db
    .insertInto('posts')
    .values({ ...columns, metadata: metadata === undefined || metadata === null ? null : jsonValue(metadata) })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export function updatePost(db: Executor, id: number, changes: PostChanges): Promise<PostsRow> {
  const { metadata, ...columns } = changes;
  return db
    .updateTable('posts')
    .set({ ...columns, ...(metadata === undefined ? {} : { metadata: jsonValue(metadata) }), updated_at: sql`now()` })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** The post locked for a state change, so concurrent transitions serialize on the row. */
export function lockPost(db: Executor, id: number): Promise<PostsRow | undefined> {
  return db.selectFrom('posts').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
}

export async function like(db: Executor, postId: number, userId: string): Promise<void> {
  await db
    .insertInto('post_likes')
    .values({ post_id: postId, user_id: userId })
    .onConflict((oc) => oc.doNothing())
    .execute();
}

export async function unlike(db: Executor, postId: number, userId: string): Promise<void> {
  await db.deleteFrom('post_likes').where('post_id', '=', postId).where('user_id', '=', userId).execute();
}

export function likeCounts(db: Executor, postIds: readonly number[]): Promise<{ post_id: number; count: number }[]> {
  return db
    .selectFrom('post_likes')
    .select(['post_id', sql<number>`count(*)`.as('count')])
    .where('post_id', 'in', postIds)
    .groupBy('post_id')
    .execute();
}
