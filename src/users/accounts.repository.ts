/**
 * The users rows as sign-in keeps them: password and provider accounts of a tenant found by address,
 * created (local, SAML, OpenID Connect), their address proof, a provider's refresh of their names and
 * roles, and the move of a domain's accounts into the tenant that verified it. SCIM's writes are in
 * provisioned-users.repository.ts, the profile's in users.repository.ts.
 */
import { sql } from 'kysely';
import type { NewUsersRow, UsersRow } from '../../generated/db/types.ts';
import type { Executor } from '../db/transaction.ts';

export function findUserByEmail(db: Executor, tenantId: string, email: string): Promise<UsersRow | undefined> {
  return db
    .selectFrom('users')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where(sql<string>`lower(email)`, '=', email.toLowerCase())
    .executeTakeFirst();
}

export function insertAccount(
  db: Executor,
  /**
   * `source`: only the sign-ins' own (SCIM writes its users itself); `email_verified_at` null: the
   * address is not proven yet (a password account in a verified domain, until its code).
   */
  user: NewUsersRow & { source: 'local' | 'saml' | 'oidc' },
): Promise<UsersRow> {
  return db.insertInto('users').values(user).returningAll().executeTakeFirstOrThrow();
}

/** Keeps the digest of a newly mailed address code, resetting the count of wrong guesses. */
export function setEmailCode(db: Executor, id: string, digest: string, ttlS: number): Promise<UsersRow> {
  return db
    .updateTable('users')
    .set({
      email_code_sha256: digest,
      email_code_expires_at: sql<Date>`now() + make_interval(secs => ${ttlS})`,
      email_code_attempts: 0,
      updated_at: sql<Date>`now()`,
    })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Counts one guess at the address code; the row as counted. */
export function countEmailCodeAttempt(db: Executor, id: string): Promise<UsersRow> {
  return db
    .updateTable('users')
    .set({ email_code_attempts: sql<number>`email_code_attempts + 1` })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** The address is proven (the code, or a provider's word): the outstanding code is spent. */
export function markEmailProven(db: Executor, id: string): Promise<UsersRow> {
  return db
    .updateTable('users')
    .set({
      email_verified_at: sql<Date>`coalesce(email_verified_at, now())`,
      email_code_sha256: null,
      email_code_expires_at: null,
      email_code_attempts: 0,
      updated_at: sql<Date>`now()`,
    })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * An identity provider vouches for an address that a password account holds without proof: the
 * account is the provider's user's from now on, and the password whoever registered it chose is gone.
 */
export function claimUnprovenAccount(db: Executor, id: string, source: 'saml' | 'oidc'): Promise<UsersRow> {
  return db
    .updateTable('users')
    .set({
      source,
      password_hash: null,
      email_verified_at: sql<Date>`now()`,
      email_code_sha256: null,
      email_code_expires_at: null,
      // Its source changes, which directory events show.
      version: sql<number>`version + 1`,
      updated_at: sql<Date>`now()`,
    })
    .where('id', '=', id)
    .where('email_verified_at', 'is', null)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Removes a password account whose address was never proven (it never could sign in); whether it did. */
export async function deleteUnprovenAccount(db: Executor, id: string): Promise<boolean> {
  const result = await db.deleteFrom('users').where('id', '=', id).where('email_verified_at', 'is', null).executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/** What a sign-in through a provider refreshes on an existing user: its names, department and roles, never `active`. */
export function refreshFromProvider(
  db: Executor,
  id: string,
  changes: { given_name: string | null; family_name: string | null; department: string | null; roles: string[] },
): Promise<UsersRow> {
  return db
    .updateTable('users')
    .set({
      given_name: sql<string | null>`coalesce(${changes.given_name}, given_name)`,
      family_name: sql<string | null>`coalesce(${changes.family_name}, family_name)`,
      department: sql<string | null>`coalesce(${changes.department}, department)`,
      roles: changes.roles,
      // The version moves when something a client reads changes (roles are not shown).
      version: sql<number>`version + case when coalesce(${changes.given_name}, given_name) is distinct from given_name
        or coalesce(${changes.family_name}, family_name) is distinct from family_name
        or coalesce(${changes.department}, department) is distinct from department then 1 else 0 end`,
      updated_at: sql<Date>`now()`,
    })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * Moves the platform tenant's password accounts at `domain` into `tenantId`, which has just verified
 * it: sign-in looks an address up in the tenant its domain routes to, so an account left behind could
 * no longer sign in. The roles it held were the platform's, which hold platform-wide, not the tenant's
 * to inherit: it arrives with none. An account whose address or username a user of the tenant already
 * has stays where it is (two records of one address in one tenant are what the unique indexes refuse).
 * The ids moved.
 */
export async function moveAccountsOfDomain(db: Executor, platformTenant: string, tenantId: string, domain: string): Promise<string[]> {
  const rows = await db
    .updateTable('users as u')
    .set({ tenant_id: tenantId, roles: [], updated_at: sql<Date>`now()` })
    .where('u.tenant_id', '=', platformTenant)
    .where('u.source', '=', 'local')
    .where(sql<string>`lower(substring(u.email from '@([^@]*)$'))`, '=', domain)
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('users as o')
            .select('o.id')
            .where('o.tenant_id', '=', tenantId)
            .where((o) => o.or([o(sql`lower(o.email)`, '=', sql`lower(u.email)`), o(sql`lower(o.username)`, '=', sql`lower(u.username)`)])),
        ),
      ),
    )
    .returning('u.id')
    .execute();
  return rows.map((r) => r.id);
}
