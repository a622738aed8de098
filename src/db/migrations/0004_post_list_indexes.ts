import { sql, type Kysely } from 'kysely';

/**
 * The post lists read a signed-in caller's own drafts as a second, ordered branch next to the
 * published posts (src/content/post-lists.repository.ts). Over posts_author_created_id_idx that
 * branch must skip the author's published and archived posts, and the planner then prefers a bitmap
 * scan plus Sort; this partial index holds exactly the drafts, in list order, so the branch is an
 * index range read in order and stops after `limit` rows.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create index posts_author_drafts_idx on posts (author_id, created_at desc, id desc) where status = 'DRAFT'`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index posts_author_drafts_idx`.execute(db);
}
