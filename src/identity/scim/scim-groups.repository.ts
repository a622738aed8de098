/** Storage of SCIM groups: `groups` rows of one tenant and their `group_members`. */
import { sql } from 'kysely';
import type { GroupsRow } from '../../../generated/db/types.ts';
import type { Executor } from '../../db/transaction.ts';
import { versionCondition } from '../../db/versioning.ts';
import type { GroupColumns, ScimGroupRecord } from './scim-groups.representation.ts';

/** Group ids are uuids; any other text names no group (and must not reach a uuid comparison). */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const isGroupId = (id: string) => UUID.test(id);

export function insertGroup(db: Executor, tenantId: string, columns: GroupColumns): Promise<GroupsRow> {
  return db
    .insertInto('groups')
    .values({ tenant_id: tenantId, display_name: columns.display_name, external_id: columns.external_id })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function findGroup(db: Executor, tenantId: string, id: string, lock = false): Promise<GroupsRow | undefined> {
  if (!isGroupId(id)) return undefined;
  const query = db.selectFrom('groups').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id);
  return (lock ? query.forUpdate() : query).executeTakeFirst();
}

export function updateGroup(
  db: Executor,
  tenantId: string,
  id: string,
  version: number,
  columns: GroupColumns,
): Promise<GroupsRow | undefined> {
  return db
    .updateTable('groups')
    .set({
      display_name: columns.display_name,
      external_id: columns.external_id,
      version: sql<number>`version + 1`,
      updated_at: sql<Date>`now()`,
    })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .where(versionCondition('version', [version]))
    .returningAll()
    .executeTakeFirst();
}

export async function deleteGroup(db: Executor, tenantId: string, id: string, version: number): Promise<boolean> {
  const deleted = await db
    .deleteFrom('groups')
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .where(versionCondition('version', [version]))
    .returning('id')
    .executeTakeFirst();
  return deleted !== undefined;
}

/** Makes the members exactly `userIds` (already checked to be users of the group's tenant). */
export async function setMembers(db: Executor, groupId: string, userIds: readonly string[]): Promise<void> {
  let removal = db.deleteFrom('group_members').where('group_id', '=', groupId);
  if (userIds.length) removal = removal.where('user_id', 'not in', [...userIds]);
  await removal.execute();
  if (!userIds.length) return;
  await db
    .insertInto('group_members')
    .values(userIds.map((user_id) => ({ group_id: groupId, user_id })))
    .onConflict((oc) => oc.columns(['group_id', 'user_id']).doNothing())
    .execute();
}

/** Groups with their members, in the order of `rows`. */
export async function withMembers(db: Executor, rows: GroupsRow[]): Promise<ScimGroupRecord[]> {
  if (!rows.length) return [];
  const members = await db
    .selectFrom('group_members')
    .innerJoin('users', 'users.id', 'group_members.user_id')
    .select([sql<string>`group_members.group_id::text`.as('group_id'), 'users.id', 'users.display_name'])
    .where(
      'group_members.group_id',
      'in',
      rows.map((r) => r.id),
    )
    .orderBy('group_members.added_at')
    .orderBy('users.id')
    .execute();
  return rows.map((row) => ({
    row,
    members: members.filter((m) => m.group_id === row.id).map((m) => ({ id: m.id, displayName: m.display_name })),
  }));
}

export async function loadGroups(db: Executor, tenantId: string, ids: readonly string[]): Promise<ScimGroupRecord[]> {
  const valid = ids.filter(isGroupId);
  if (!valid.length) return [];
  const rows = await db.selectFrom('groups').selectAll().where('tenant_id', '=', tenantId).where('id', 'in', valid).execute();
  const byId = new Map(rows.map((r) => [r.id, r]));
  return withMembers(
    db,
    valid.map((id) => byId.get(id)).filter((r): r is GroupsRow => r !== undefined),
  );
}
