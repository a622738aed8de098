/**
 * SCIM users as records: the tenant's `users` rows (read through src/users/provisioned-users.repository.ts,
 * which also writes them) with their groups and their manager.
 */
import { sql } from 'kysely';
import type { UsersRow } from '../../../generated/db/types.ts';
import type { Executor } from '../../db/transaction.ts';
import { displayNamesInTenant, findTenantUsers } from '../../users/provisioned-users.repository.ts';
import type { ScimUserRecord } from './scim-users.representation.ts';

/** Users with their groups and manager, in the order of `ids` (missing ids are skipped). */
export async function loadUsers(db: Executor, tenantId: string, ids: readonly string[]): Promise<ScimUserRecord[]> {
  return withRelations(db, tenantId, await findTenantUsers(db, tenantId, ids), ids);
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
    displayNamesInTenant(db, tenantId, managerIds),
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
