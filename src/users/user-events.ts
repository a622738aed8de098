/**
 * The directory's user events (issue 44), recorded through the webhooks area's outbox in the
 * transaction of the change, whichever door it came through (SCIM, just-in-time sign-in, local
 * registration, GraphQL's createUser/updateUser/deleteUser): `user.created`, `user.updated` (a
 * change a client can read; previous_attributes = the changed fields), `user.deactivated` and
 * `user.reactivated` (sent with the `user.updated` of the same sequence when `active` flips) and
 * `user.deleted` (the last representation; sequence one past the last version). Each belongs to the
 * user's tenant: its endpoints receive it, another tenant's never (outbox.repository.ts).
 */
import type { UsersRow } from '../../generated/db/types.ts';
import type { Executor } from '../db/transaction.ts';
import type { EventType } from '../webhooks/event-types.ts';
import { previousAttributes } from '../webhooks/events/changes.ts';
import { recordEvent, type NewEvent } from '../webhooks/outbox.repository.ts';

/** A user as directory events show it (openapi/webhooks.yaml `DirectoryUser`). */
function toDirectoryUser(user: UsersRow): Record<string, unknown> {
  return {
    id: user.id,
    tenantId: user.tenant_id,
    username: user.username,
    email: user.email,
    displayName: user.display_name,
    givenName: user.given_name,
    familyName: user.family_name,
    department: user.department,
    externalId: user.external_id,
    active: user.active,
    source: user.source,
    version: user.version,
    createdAt: user.created_at.toISOString(),
    updatedAt: user.updated_at.toISOString(),
  };
}

/** Where a client of the tenant reads the user: its SCIM resource. */
const userPath = (id: string) => `/scim/v2/Users/${id}`;

function userEvent(type: EventType, user: UsersRow, extra: Partial<NewEvent> = {}): NewEvent {
  return {
    type,
    resourceType: 'user',
    resourceId: user.id,
    sequence: user.version,
    object: toDirectoryUser(user),
    resourcePath: userPath(user.id),
    tenantId: user.tenant_id,
    ...extra,
  };
}

export async function recordUserCreated(db: Executor, user: UsersRow): Promise<void> {
  await recordEvent(db, userEvent('user.created', user));
}

/**
 * A change: `user.updated` with the changed fields, and `user.deactivated` or `user.reactivated`
 * beside it when `active` flipped; nothing when nothing a client reads changed.
 */
export async function recordUserChanged(db: Executor, before: UsersRow, after: UsersRow): Promise<void> {
  const object = toDirectoryUser(after);
  const changed = previousAttributes(toDirectoryUser(before), object);
  delete changed.version;
  delete changed.updatedAt;
  if (Object.keys(changed).length === 0) return;
  await recordEvent(db, userEvent('user.updated', after, { previousAttributes: changed }));
  if (before.active !== after.active) {
    await recordEvent(
      db,
      userEvent(after.active ? 'user.reactivated' : 'user.deactivated', after, { previousAttributes: { active: before.active } }),
    );
  }
}

export async function recordUserDeleted(db: Executor, user: UsersRow): Promise<void> {
  await recordEvent(db, userEvent('user.deleted', user, { sequence: user.version + 1, resourcePath: null }));
}

const SAMPLE_USER_ID = '00000000-0000-4000-8000-000000000004';

/** The user a test event is about (decision 77): it does not exist, and its id says so. */
const sampleUser: UsersRow = {
  id: SAMPLE_USER_ID,
  tenant_id: 'default',
  username: 'sample.user',
  email: 'sample.user@example.com',
  display_name: 'Sample User',
  bio: null,
  avatar_url: null,
  given_name: 'Sample',
  family_name: 'User',
  external_id: 'sample-external-id',
  source: 'scim',
  active: true,
  created_at: new Date('2026-01-01T12:00:00.000Z'),
  updated_at: new Date('2026-01-01T12:00:00.000Z'),
  emails: null,
  employee_number: null,
  department: 'Sales',
  manager_id: null,
  version: 1,
  password_hash: null,
  roles: [],
  display_name_derived: false,
  email_verified_at: null,
  email_code_sha256: null,
  email_code_expires_at: null,
  email_code_attempts: 0,
};

/** Test events of the users' types, built as the real ones are (POST /api/webhooks/{id}/test). */
export const userEventSamples: Record<Extract<EventType, `user.${string}`>, () => NewEvent> = {
  'user.created': () => userEvent('user.created', sampleUser, { sequence: null }),
  'user.updated': () => userEvent('user.updated', sampleUser, { sequence: null, previousAttributes: { department: 'Support' } }),
  'user.deactivated': () =>
    userEvent('user.deactivated', { ...sampleUser, active: false }, { sequence: null, previousAttributes: { active: true } }),
  'user.reactivated': () => userEvent('user.reactivated', sampleUser, { sequence: null, previousAttributes: { active: false } }),
  'user.deleted': () => userEvent('user.deleted', sampleUser, { sequence: null, resourcePath: null }),
};
