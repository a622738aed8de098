import type { Kysely } from 'kysely';

/**
 * Products get the revision number that orders and the config document already have: it is their
 * entity tag, so `If-Match` on PUT/PATCH can refuse a write based on a stale copy. Every update
 * bumps it in the same UPDATE that compares it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('products')
    .addColumn('version', 'integer', (c) => c.notNull().defaultTo(1))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('products').dropColumn('version').execute();
}
