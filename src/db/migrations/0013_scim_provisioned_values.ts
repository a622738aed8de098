import { sql, type Kysely } from 'kysely';

/**
 * SCIM answers what a client provisioned, and the rest of the application keeps the values it
 * derives (decision 66).
 *
 * - `users.display_name_derived`: true when `display_name` was made by the server (from the name
 *   parts, else userName) because the client sent no `displayName`. The content API shows the
 *   derived name; SCIM leaves `displayName` out. The data cannot tell this by itself: a client may
 *   send a `displayName` equal to the one the server would derive, and it is the client's own. Rows
 *   written before this migration keep answering their name (false).
 * - `users.emails`: a SCIM write without `emails` now stores `[]` (null stays "never written by
 *   SCIM": such a user shows its one `users.email`). Users that SCIM created without `emails` get
 *   `[]`, so their userName, which is their `users.email`, is no longer answered as an address.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('users')
    .addColumn('display_name_derived', 'boolean', (c) => c.notNull().defaultTo(false))
    .execute();
  await sql`update users set emails = '[]'::jsonb where source = 'scim' and emails is null`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`update users set emails = null where emails = '[]'::jsonb`.execute(db);
  await db.schema.alterTable('users').dropColumn('display_name_derived').execute();
}
