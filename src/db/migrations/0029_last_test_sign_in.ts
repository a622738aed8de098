import { sql, type Kysely } from 'kysely';

/**
 * `identity_providers.last_test_sign_in`: what the tenant's latest test sign-in found (issue 45, the
 * portal's single sign-on steps): when, the subject and attributes the provider sent, how they map,
 * the roles, and the outcome or the reason it was refused. One per provider, replaced by the next
 * test, so the portal (in another window than the sign-in) can show it and put the attributes the
 * provider really sends beside the attribute mapping. It holds what an administrator's own test
 * user's provider asserted, no credential; it goes with the provider row.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table identity_providers add column last_test_sign_in jsonb`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table identity_providers drop column last_test_sign_in`.execute(db);
}
