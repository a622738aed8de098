/** A SCIM Group and its storage (MAPPING: `groups` row, members in `group_members`). */
import type { GroupsRow } from '../../../generated/db/types.ts';
import type { components } from '../../../generated/openapi/scim.ts';
import { scimInvalid } from './scim-errors.ts';
import { GROUP_SCHEMA } from './scim-schema.ts';
import { groupLocation, userLocation, weakTag } from './scim-users.representation.ts';
import { isObject } from './scim-values.ts';

type Json = Record<string, unknown>;

/** A Group as openapi/scim.yaml documents it. */
type ScimGroup = components['schemas']['Group'];

export interface ScimGroupRecord {
  row: GroupsRow;
  /** In the order they were added. */
  members: { id: string; displayName: string }[];
}

export interface GroupColumns {
  display_name: string;
  external_id: string | null;
  /** Member user ids, without repetitions. */
  memberIds: string[];
}

export function toScimGroup({ row, members }: ScimGroupRecord, baseUrl: string): ScimGroup {
  return {
    schemas: [GROUP_SCHEMA],
    id: row.id,
    displayName: row.display_name,
    ...(row.external_id !== null ? { externalId: row.external_id } : {}),
    members: members.map((m) => ({ value: m.id, display: m.displayName, type: 'User', $ref: userLocation(baseUrl, m.id) })),
    meta: {
      resourceType: 'Group',
      created: row.created_at.toISOString(),
      lastModified: row.updated_at.toISOString(),
      location: groupLocation(baseUrl, row.id),
      version: weakTag(row.version),
    },
  };
}

export function groupColumnsFrom(resource: Json): GroupColumns {
  const displayName = typeof resource.displayName === 'string' ? resource.displayName.trim() : '';
  if (!displayName) throw scimInvalid('invalidValue', 'displayName is required');
  if (displayName.length > 256) throw scimInvalid('invalidValue', 'displayName is longer than 256 characters');
  const externalId = resource.externalId;
  if (externalId !== undefined && externalId !== null && typeof externalId !== 'string')
    throw scimInvalid('invalidValue', 'externalId must be a string');
  const members = resource.members ?? [];
  if (!Array.isArray(members)) throw scimInvalid('invalidValue', 'members must be an array');
  const memberIds: string[] = [];
  members.forEach((member: unknown, i) => {
    const value = isObject(member) ? member.value : undefined;
    if (typeof value !== 'string' || value === '') throw scimInvalid('invalidValue', `members[${i}].value must be a user id`);
    if (!memberIds.includes(value)) memberIds.push(value);
  });
  return { display_name: displayName, external_id: typeof externalId === 'string' && externalId !== '' ? externalId : null, memberIds };
}
