/**
 * The directory's group events (issue 44), recorded through the webhooks area's outbox in the
 * transaction of the SCIM write: `group.created`, `group.updated` (its name or external id changed;
 * previous_attributes = the changed fields), `group.deleted` (the last representation; sequence one
 * past the last version), and one `group.member_added` or `group.member_removed` per member that
 * came or went, in the order of the change, each with the group's version after it. All of one
 * group share its ordering (resource `group`), so a receiver sees them in the order they happened.
 * Each belongs to the group's tenant.
 */
import type { GroupsRow } from '../../../generated/db/types.ts';
import type { Executor } from '../../db/transaction.ts';
import type { EventType } from '../../webhooks/event-types.ts';
import { previousAttributes } from '../../webhooks/events/changes.ts';
import { recordEvent, type NewEvent } from '../../webhooks/outbox.repository.ts';

/** A group as directory events show it (openapi/webhooks.yaml `DirectoryGroup`). */
function toDirectoryGroup(group: GroupsRow): Record<string, unknown> {
  return {
    id: group.id,
    tenantId: group.tenant_id,
    displayName: group.display_name,
    externalId: group.external_id,
    version: group.version,
    createdAt: group.created_at.toISOString(),
    updatedAt: group.updated_at.toISOString(),
  };
}

const groupPath = (id: string) => `/scim/v2/Groups/${id}`;

function groupEvent(type: EventType, group: GroupsRow, object: Record<string, unknown>, extra: Partial<NewEvent> = {}): NewEvent {
  return {
    type,
    resourceType: 'group',
    resourceId: group.id,
    sequence: group.version,
    object,
    resourcePath: groupPath(group.id),
    tenantId: group.tenant_id,
    ...extra,
  };
}

/** A member's event object: the group and the user (openapi/webhooks.yaml `GroupMembership`). */
const membership = (group: GroupsRow, userId: string) => ({
  groupId: group.id,
  groupDisplayName: group.display_name,
  userId,
  tenantId: group.tenant_id,
});

async function recordMembers(db: Executor, group: GroupsRow, added: readonly string[], removed: readonly string[]): Promise<void> {
  for (const userId of removed) await recordEvent(db, groupEvent('group.member_removed', group, membership(group, userId)));
  for (const userId of added) await recordEvent(db, groupEvent('group.member_added', group, membership(group, userId)));
}

export async function recordGroupCreated(db: Executor, group: GroupsRow, memberIds: readonly string[]): Promise<void> {
  await recordEvent(db, groupEvent('group.created', group, toDirectoryGroup(group)));
  await recordMembers(db, group, memberIds, []);
}

/** `group.updated` when its name or external id changed, then the members that came and went. */
export async function recordGroupChanged(
  db: Executor,
  before: GroupsRow,
  after: GroupsRow,
  members: { before: readonly string[]; after: readonly string[] },
): Promise<void> {
  const object = toDirectoryGroup(after);
  const changed = previousAttributes(toDirectoryGroup(before), object);
  delete changed.version;
  delete changed.updatedAt;
  if (Object.keys(changed).length) await recordEvent(db, groupEvent('group.updated', after, object, { previousAttributes: changed }));
  await recordMembers(
    db,
    after,
    members.after.filter((id) => !members.before.includes(id)),
    members.before.filter((id) => !members.after.includes(id)),
  );
}

export async function recordGroupDeleted(db: Executor, group: GroupsRow): Promise<void> {
  await recordEvent(db, groupEvent('group.deleted', group, toDirectoryGroup(group), { sequence: group.version + 1, resourcePath: null }));
}

const SAMPLE_GROUP_ID = '00000000-0000-4000-8000-000000000005';
const SAMPLE_USER_ID = '00000000-0000-4000-8000-000000000004';

/** The group a test event is about (decision 77): it does not exist, and its id says so. */
const sampleGroup: GroupsRow = {
  id: SAMPLE_GROUP_ID,
  tenant_id: 'default',
  display_name: 'Sample group',
  external_id: 'sample-group-external-id',
  version: 1,
  created_at: new Date('2026-01-01T12:00:00.000Z'),
  updated_at: new Date('2026-01-01T12:00:00.000Z'),
};

const sample = (type: EventType, object: Record<string, unknown>, extra: Partial<NewEvent> = {}) =>
  groupEvent(type, sampleGroup, object, { sequence: null, ...extra });

/** Test events of the groups' types, built as the real ones are (POST /api/webhooks/{id}/test). */
export const groupEventSamples: Record<Extract<EventType, `group.${string}`>, () => NewEvent> = {
  'group.created': () => sample('group.created', toDirectoryGroup(sampleGroup)),
  'group.updated': () => sample('group.updated', toDirectoryGroup(sampleGroup), { previousAttributes: { displayName: 'Old name' } }),
  'group.deleted': () => sample('group.deleted', toDirectoryGroup(sampleGroup), { resourcePath: null }),
  'group.member_added': () => sample('group.member_added', membership(sampleGroup, SAMPLE_USER_ID)),
  'group.member_removed': () => sample('group.member_removed', membership(sampleGroup, SAMPLE_USER_ID)),
};
