/** Storage of SCIM users: the `users` rows of one tenant, their groups and their manager. */
import { sql } from 'kysely';
import type { UsersRow } from '../../../generated/db/types.ts';
import type { Executor } from '../../db/transaction.ts';
import { versionCondition } from '../../db/versioning.ts';
import type { ScimUserRecord, UserColumns } from './scim-users.representation.ts';

const jsonb = (value: unknown) => (value === null ? null : sql<unknown>`${JSON.stringify(value)}::jsonb`);

function row(columns: UserColumns) {
  return { ...columns, emails: jsonb(columns.emails) };
}

export function insertUser(db: Executor, tenantId: string, columns: UserColumns): Promise<UsersRow> {
  return db
    .insertInto('users')
    .values({ ...row(columns), tenant_id: tenantId, source: 'scim' })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export function findUser(db: Executor, tenantId: string, id: string, lock = false): Promise<UsersRow | undefined> {
  const query = db.selectFrom('users').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id);
  return (lock ? query.forUpdate() : query).executeTakeFirst();
}

/** Writes the columns when the row is still at `version` (compare-and-set); undefined otherwise. */
export function updateUser(
  db: Executor,
  tenantId: string,
  id: string,
  version: number,
  columns: UserColumns,
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

/** Users with their groups and manager, in the order of `ids` (missing ids are skipped). */
export async function loadUsers(db: Executor, tenantId: string, ids: readonly string[]): Promise<ScimUserRecord[]> {
  if (!ids.length) return [];
  const rows = await db
    .selectFrom('users')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', 'in', [...ids])
    .execute();
  return withRelations(db, tenantId, rows, ids);
}

export async function withRelations(
  db: Executor,
  tenantId: string,
  rows: UsersRow[],
  order?: readonly string[],
): Promise<ScimUserRecord[]> {
  if (!rows.length) return [];
  const ids = rows.map((r) => r.id);
  const managerIds = [...new Set(rows.map((r) => r.manager_id).filter((id): id is string => id !== null))];
  const [memberships, managers] = await Promise.all([
    db
      .selectFrom('group_members')
      .innerJoin('groups', 'groups.id', 'group_members.group_id')
      .select(['group_members.user_id', sql<string>`groups.id::text`.as('group_id'), 'groups.display_name'])
      .where('groups.tenant_id', '=', tenantId)
      .where('group_members.user_id', 'in', ids)
      .orderBy('groups.display_name')
      .execute(),
    managerIds.length
      ? db.selectFrom('users').select(['id', 'display_name']).where('tenant_id', '=', tenantId).where('id', 'in', managerIds).execute()
      : Promise.resolve([]),
  ]);
  const managerById = new Map(managers.map((m) => [m.id, m.display_name]));
  const byId = new Map(
    rows.map((r) => [
      r.id,
      {
        row: r,
        groups: memberships.filter((m) => m.user_id === r.id).map((m) => ({ id: m.group_id, displayName: m.display_name })),
        manager:
          r.manager_id !== null && managerById.has(r.manager_id) ? { id: r.manager_id, displayName: managerById.get(r.manager_id)! } : null,
      },
    ]),
  );
  return (order ?? ids).map((id) => byId.get(id)).filter((r): r is ScimUserRecord => r !== undefined);
}
