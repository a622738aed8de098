import type { Kysely } from 'kysely';

/**
 * `Post.metadata` (the schema's `Json` scalar): a client-defined object kept exactly as sent. `json`
 * rather than `jsonb` because jsonb reorders keys and drops duplicates, and the field promises the
 * value comes back unchanged; nothing queries inside it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('posts').addColumn('metadata', 'json').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('posts').dropColumn('metadata').execute();
}
