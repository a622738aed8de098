import { sql } from 'kysely';
import type { TagsRow } from '../../generated/db/types.ts';
import type { Executor } from '../db/transaction.ts';

/** Finds or creates each tag; returns them in the order of `names`. */
export async function upsertTags(db: Executor, names: readonly string[]): Promise<TagsRow[]> {
  if (!names.length) return [];
  // `do update` (a no-op write) instead of `do nothing`, so existing tags come back in `returning` too.
  const rows = await db
    .insertInto('tags')
    .values(names.map((name) => ({ name })))
    .onConflict((oc) => oc.column('name').doUpdateSet({ name: (eb) => eb.ref('excluded.name') }))
    .returningAll()
    .execute();
  const byName = new Map(rows.map((r) => [r.name, r]));
  return names.map((n) => byName.get(n)!);
}

/** Replaces the tags of a post, keeping the author's order in `position`. */
export async function setPostTags(db: Executor, postId: number, tags: readonly TagsRow[]): Promise<void> {
  await db.deleteFrom('post_tags').where('post_id', '=', postId).execute();
  if (!tags.length) return;
  await db
    .insertInto('post_tags')
    .values(tags.map((tag, position) => ({ post_id: postId, tag_id: tag.id, position })))
    .execute();
}

export function tagsOfPosts(db: Executor, postIds: readonly number[]): Promise<(TagsRow & { post_id: number })[]> {
  return db
    .selectFrom('post_tags')
    .innerJoin('tags', 'tags.id', 'post_tags.tag_id')
    .select(['tags.id', 'tags.name', 'post_tags.post_id'])
    .where('post_tags.post_id', 'in', postIds)
    .orderBy('post_tags.post_id')
    .orderBy('post_tags.position')
    .execute();
}

export function postCounts(db: Executor, tagIds: readonly number[]): Promise<{ tag_id: number; count: number }[]> {
  return db
    .selectFrom('post_tags')
    .select(['tag_id', sql<number>`count(*)`.as('count')])
    .where('tag_id', 'in', tagIds)
    .groupBy('tag_id')
    .execute();
}
