import { sql } from 'kysely';
import type { UsersRow } from '../../../generated/db/types.ts';
import type { Executor } from '../../db/transaction.ts';

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
  user: {
    tenant_id: string;
    username: string;
    email: string;
    display_name: string;
    given_name: string | null;
    family_name: string | null;
    department: string | null;
    source: 'local' | 'saml' | 'oidc';
    password_hash: string | null;
    roles: string[];
  },
): Promise<UsersRow> {
  return db.insertInto('users').values(user).returningAll().executeTakeFirstOrThrow();
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
      updated_at: sql<Date>`now()`,
    })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** The display names of the SCIM groups the user is a member of. */
export async function groupNamesOfUser(db: Executor, userId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('group_members as m')
    .innerJoin('groups as g', 'g.id', 'm.group_id')
    .select('g.display_name')
    .where('m.user_id', '=', userId)
    .execute();
  return rows.map((r) => r.display_name);
}
