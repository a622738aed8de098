/**
 * Proof of the mailbox for password accounts in a domain a tenant has verified (account pre-hijack):
 * `users.email_verified_at` (when the address was proven: a mailed code typed back, or the identity
 * provider's or provisioning client's word), and the one outstanding code (its SHA-256, expiry and the
 * wrong guesses made). Existing users count as proven from their creation, as they did before.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('users')
    .addColumn('email_verified_at', 'timestamptz')
    .addColumn('email_code_sha256', 'text')
    .addColumn('email_code_expires_at', 'timestamptz')
    .addColumn('email_code_attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await sql`update users set email_verified_at = created_at`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('users')
    .dropColumn('email_verified_at')
    .dropColumn('email_code_sha256')
    .dropColumn('email_code_expires_at')
    .dropColumn('email_code_attempts')
    .execute();
}
