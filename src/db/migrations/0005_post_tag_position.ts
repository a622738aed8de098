import { sql, type Kysely } from 'kysely';

/**
 * `Post.tags` is documented as "in the order given by the author", which a bare (post_id, tag_id)
 * pair cannot reproduce: keep the author's position next to the pair.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('post_tags')
    .addColumn('position', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await sql`create index post_tags_post_position_idx on post_tags (post_id, position)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index post_tags_post_position_idx`.execute(db);
  await db.schema.alterTable('post_tags').dropColumn('position').execute();
}
