/** The group memberships sign-in reads and a domain move ends (group_members, groups). */
import type { Executor } from '../../db/transaction.ts';

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

/** Ends a moved user's memberships of its former tenant's groups: a group never reaches across tenants. */
export async function leaveGroupsOutside(db: Executor, userId: string, tenantId: string): Promise<void> {
  await db
    .deleteFrom('group_members')
    .where('user_id', '=', userId)
    .where('group_id', 'not in', (eb) => eb.selectFrom('groups').select('id').where('tenant_id', '=', tenantId))
    .execute();
}
