/**
 * Sign-ins in flight remember the browser that started them (login CSRF): `sso_requests.browser_binding`
 * is the SHA-256 of the random value of the short-lived `sf_signin` cookie set when the sign-in starts,
 * which the callback must bring back. Null for an administrator's test sign-in (it signs nobody in)
 * and for sign-ins started before this migration.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('sso_requests').addColumn('browser_binding', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('sso_requests').dropColumn('browser_binding').execute();
}
