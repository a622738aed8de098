/**
 * The users rows as SCIM provisions them: always within one tenant, written whole (the columns a SCIM
 * client writes, src/identity/scim/scim-users.representation.ts makes them from a resource) and
 * compare-and-set on the version; and the tenant's users a SCIM filter matches, for its list
 * (src/identity/scim/scim-list.ts compiles the filter, these run it).
 */
import { sql, type Expression, type SqlBool } from 'kysely';
import type { UsersRow } from '../../generated/db/types.ts';
import type { Executor } from '../db/transaction.ts';
import { versionCondition } from '../db/versioning.ts';

type Json = Record<string, unknown>;

/** The columns of `users` a SCIM client writes. */
export interface ProvisionedUserColumns {
  username: string;
  email: string;
  /** As sent; `[]` when the client sent none (null is left to users SCIM never wrote). */
  emails: Json[];
  display_name: string;
  /** The client sent no displayName: `display_name` is the server's, for the rest of the application. */
  display_name_derived: boolean;
  given_name: string | null;
  family_name: string | null;
  external_id: string | null;
  active: boolean;
  employee_number: string | null;
  department: string | null;
  manager_id: string | null;
}

const jsonb = (value: unknown) => (value === null ? null : sql<unknown>`${JSON.stringify(value)}::jsonb`);

function row(columns: ProvisionedUserColumns) {
  return { ...columns, emails: jsonb(columns.emails) };
}

export function insertProvisionedUser(db: Executor, tenantId: string, columns: ProvisionedUserColumns): Promise<UsersRow> {
  return db
    .insertInto('users')
    .values({ ...row(columns), tenant_id: tenantId, source: 'scim' })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** The tenant's user of that id (locked for update when `lock`). */
export function findTenantUser(db: Executor, tenantId: string, id: string, lock = false): Promise<UsersRow | undefined> {
  const query = db.selectFrom('users').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id);
  return (lock ? query.forUpdate() : query).executeTakeFirst();
}

/** The tenant's users among `ids`, in no particular order. */
export function findTenantUsers(db: Executor, tenantId: string, ids: readonly string[]): Promise<UsersRow[]> {
  if (!ids.length) return Promise.resolve([]);
  return db
    .selectFrom('users')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', 'in', [...ids])
    .execute();
}

/** The display names of the tenant's users among `ids` (a SCIM user's manager). */
export function displayNamesInTenant(
  db: Executor,
  tenantId: string,
  ids: readonly string[],
): Promise<{ id: string; display_name: string }[]> {
  if (!ids.length) return Promise.resolve([]);
  return db
    .selectFrom('users')
    .select(['id', 'display_name'])
    .where('tenant_id', '=', tenantId)
    .where('id', 'in', [...ids])
    .execute();
}

/** Writes the columns when the row is still at `version` (compare-and-set); undefined otherwise. */
export function updateProvisionedUser(
  db: Executor,
  tenantId: string,
  id: string,
  version: number,
  columns: ProvisionedUserColumns,
): Promise<UsersRow | undefined> {
  return db
    .updateTable('users')
    .set({ ...row(columns), version: sql<number>`version + 1`, updated_at: sql<Date>`now()` })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .where(versionCondition('version', [version]))
    .returningAll()
    .executeTakeFirst();
}

/** The ids among `ids` that are users of the tenant. */
export async function existingUserIds(db: Executor, tenantId: string, ids: readonly string[]): Promise<Set<string>> {
  if (!ids.length) return new Set();
  const rows = await db
    .selectFrom('users')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('id', 'in', [...ids])
    .execute();
  return new Set(rows.map((r) => r.id));
}

/** A page of the users a list asks for: the condition (over `users`), its order, and the rows wanted. */
export interface MatchingUsersPage {
  where: Expression<SqlBool>;
  order: { key: Expression<unknown>; direction: 'asc' | 'desc' };
  offset: number;
  limit: number;
  /** Each row carries the count of every matching row (`count(*) over ()`) as `total`. */
  withTotal: boolean;
}

const matching = (db: Executor, tenantId: string, where: Expression<SqlBool>) =>
  db.selectFrom('users').where('users.tenant_id', '=', tenantId).where(where);

/** How many of the tenant's users match `where`. */
export function countMatchingUsers(db: Executor, tenantId: string, where: Expression<SqlBool>): Promise<{ n: number }> {
  return matching(db, tenantId, where)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
}

/** The ids of a page of the tenant's users that match, in the page's order (ties by id, the same way). */
export function matchingUserIds(
  db: Executor,
  tenantId: string,
  page: MatchingUsersPage,
): Promise<{ id: string; total?: number | string }[]> {
  const { order } = page;
  return matching(db, tenantId, page.where)
    .select('users.id')
    .$if(page.withTotal, (q) => q.select(sql<number | string>`count(*) over ()`.as('total')))
    .orderBy(order.key, (ob) => ob[order.direction]().nullsLast())
    .orderBy('users.id', order.direction)
    .limit(page.limit)
    .offset(page.offset)
    .execute();
}
