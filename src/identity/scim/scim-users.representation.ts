/**
 * A SCIM User and the one user record it is kept in (MAPPING: users row, enterprise columns, group
 * memberships): the representation a client reads, and the columns a client's representation
 * becomes, with the rules of both POST and PUT (and PATCH, which ends as a full representation).
 */
import type { UsersRow } from '../../../generated/db/types.ts';
import type { components } from '../../../generated/openapi/scim.ts';
import type { ProvisionedUserColumns } from '../../users/provisioned-users.repository.ts';
import { scimInvalid } from './scim-errors.ts';
import { ENTERPRISE_SCHEMA, USER_SCHEMA } from './scim-schema.ts';
import { isObject } from './scim-values.ts';

type Json = Record<string, unknown>;

/** A User as openapi/scim.yaml documents it (what GET /Users/{id} answers). */
type ScimUser = components['schemas']['User'];
type EnterpriseUser = components['schemas']['EnterpriseUser'];

export interface ScimUserRecord {
  row: UsersRow;
  groups: { id: string; displayName: string }[];
  manager: { id: string; displayName: string } | null;
}

/** The columns of `users` a SCIM client writes (src/users/ writes them). */
export type UserColumns = ProvisionedUserColumns;

export const weakTag = (version: number) => `W/"${version}"`;
export const userLocation = (baseUrl: string, id: string) => `${baseUrl}/scim/v2/Users/${encodeURIComponent(id)}`;
export const groupLocation = (baseUrl: string, id: string) => `${baseUrl}/scim/v2/Groups/${encodeURIComponent(id)}`;

const EMAIL_ADDRESS = /^[^\s@]+@[^\s@]+$/;

function text(value: unknown, path: string): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw scimInvalid('invalidValue', `${path} must be a string`);
  return value.trim() === '' ? null : value;
}

/** The user's SCIM representation; `baseUrl` makes `meta.location` and the `$ref`s absolute. */
export function toScimUser({ row, groups, manager }: ScimUserRecord, baseUrl: string): ScimUser {
  const user: ScimUser = {
    schemas: [USER_SCHEMA],
    id: row.id,
    meta: {
      resourceType: 'User',
      created: row.created_at.toISOString(),
      lastModified: row.updated_at.toISOString(),
      location: userLocation(baseUrl, row.id),
      version: weakTag(row.version),
    },
  };
  if (row.external_id !== null) user.externalId = row.external_id;
  user.userName = row.username;
  const name: ScimUser['name'] = {};
  if (row.given_name !== null) name.givenName = row.given_name;
  if (row.family_name !== null) name.familyName = row.family_name;
  if (Object.keys(name).length) user.name = name;
  // What the client provisioned, not what the server derived for the content API (a name made of
  // the name parts, the userName used as the address).
  if (!row.display_name_derived) user.displayName = row.display_name;
  const emails = shownEmails(row);
  // Stored as the client sent them, checked by emailsOf when written.
  if (emails.length) user.emails = emails as ScimUser['emails'];
  user.active = row.active;
  if (groups.length) user.groups = groups.map((g) => ({ value: g.id, display: g.displayName, $ref: groupLocation(baseUrl, g.id) }));
  const enterprise: EnterpriseUser = {};
  if (row.employee_number !== null) enterprise.employeeNumber = row.employee_number;
  if (row.department !== null) enterprise.department = row.department;
  if (manager) enterprise.manager = { value: manager.id, displayName: manager.displayName, $ref: userLocation(baseUrl, manager.id) };
  if (Object.keys(enterprise).length) {
    user.schemas = [USER_SCHEMA, ENTERPRISE_SCHEMA];
    user[ENTERPRISE_SCHEMA] = enterprise;
  }
  // `meta` last, as clients have always read it (the order of a JSON object's members is visible).
  const { meta, ...rest } = user;
  return { ...rest, meta };
}

/**
 * The `emails` a client reads: the list it wrote (maybe empty); for a user SCIM never wrote (signed
 * up or signed in by SSO: `emails` null), its one address.
 */
export function shownEmails(row: Pick<UsersRow, 'emails' | 'email'>): unknown[] {
  return Array.isArray(row.emails) ? row.emails : [{ value: row.email, primary: true }];
}

function emailsOf(value: unknown): Json[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw scimInvalid('invalidValue', 'emails must be an array');
  const emails = value.map((item, i) => {
    if (!isObject(item) || typeof item.value !== 'string' || item.value.trim() === '')
      throw scimInvalid('invalidValue', `emails[${i}].value must be a non-empty string`);
    return Object.fromEntries(Object.entries(item).filter(([, v]) => v !== null && v !== undefined));
  });
  if (emails.filter((e) => e.primary === true).length > 1) throw scimInvalid('invalidValue', 'emails: at most one address may be primary');
  return emails;
}

/**
 * The columns a canonical representation (scim-values.ts) becomes. E-mail: the primary address, else
 * the first; without `emails`, a userName that is an e-mail address; otherwise 400 naming `emails`.
 * Without `displayName`, the name parts, else userName, flagged as derived (SCIM does not answer it).
 */
export function userColumnsFrom(resource: Json): UserColumns {
  const username = text(resource.userName, 'userName');
  if (!username) throw scimInvalid('invalidValue', 'userName is required');
  if (username.length > 256) throw scimInvalid('invalidValue', 'userName is longer than 256 characters');
  const emails = emailsOf(resource.emails);
  let email: string;
  if (emails.length) email = String((emails.find((e) => e.primary === true) ?? emails[0]!).value);
  else if (EMAIL_ADDRESS.test(username)) email = username;
  else throw scimInvalid('invalidValue', 'emails is required: the user has no e-mail address and userName is not one');
  const name = isObject(resource.name) ? resource.name : {};
  const givenName = text(name.givenName, 'name.givenName');
  const familyName = text(name.familyName, 'name.familyName');
  const displayName = text(resource.displayName, 'displayName');
  const enterprise = isObject(resource[ENTERPRISE_SCHEMA]) ? resource[ENTERPRISE_SCHEMA] : {};
  const manager = isObject(enterprise.manager) ? text(enterprise.manager.value, `${ENTERPRISE_SCHEMA}:manager.value`) : null;
  if (resource.active !== undefined && resource.active !== null && typeof resource.active !== 'boolean')
    throw scimInvalid('invalidValue', 'active must be a boolean');
  return {
    username,
    email: email.toLowerCase(),
    emails,
    display_name: displayName ?? ([givenName, familyName].filter(Boolean).join(' ') || username),
    display_name_derived: displayName === null,
    given_name: givenName,
    family_name: familyName,
    external_id: text(resource.externalId, 'externalId'),
    active: resource.active !== false,
    employee_number: text(enterprise.employeeNumber, `${ENTERPRISE_SCHEMA}:employeeNumber`),
    department: text(enterprise.department, `${ENTERPRISE_SCHEMA}:department`),
    manager_id: manager,
  };
}
