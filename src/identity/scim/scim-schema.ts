/**
 * The SCIM attributes this service provider supports, as RFC 7643 §7 schema definitions: the one
 * table. `/Schemas` publishes it; PATCH and POST/PUT bodies resolve names against it (canonical
 * names, which attributes are multi-valued or complex, and which are read-only); filters, `sortBy`
 * and `attributes`/`excludedAttributes` resolve their paths against it (scim-attribute-path.ts), so a
 * name one of them accepts the others know too.
 */

export const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const ENTERPRISE_SCHEMA = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
export const GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group';
export const ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';
export const LIST_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';

export type ResourceKind = 'User' | 'Group';

export interface AttributeDefinition {
  name: string;
  type: 'string' | 'boolean' | 'dateTime' | 'reference' | 'complex';
  multiValued: boolean;
  description: string;
  required: boolean;
  caseExact: boolean;
  mutability: 'readOnly' | 'readWrite' | 'immutable';
  returned: 'always' | 'default';
  uniqueness: 'none' | 'server';
  referenceTypes?: string[];
  subAttributes?: AttributeDefinition[];
  /**
   * Storage, not published: the column of the resource's table (`users`, `groups`) holding the
   * value (for a multi-valued attribute, its primary value), and whether it is a uuid there.
   * `derivedWhen` names a boolean column that is true when the server made the value itself: the
   * representation leaves it out, so filters and `sortBy` treat it as absent.
   */
  stored?: { column: string; uuid?: boolean; derivedWhen?: string };
}

type Spec = Partial<AttributeDefinition> & Pick<AttributeDefinition, 'name' | 'description'>;

function attribute(spec: Spec): AttributeDefinition {
  return {
    type: 'string',
    multiValued: false,
    required: false,
    caseExact: false,
    mutability: 'readWrite',
    returned: 'default',
    uniqueness: 'none',
    ...spec,
  };
}

const referenceOf = (what: string, readOnly: boolean): AttributeDefinition[] => {
  const mutability = readOnly ? 'readOnly' : 'immutable';
  return [
    attribute({ name: 'value', description: `The id of the ${what}.`, caseExact: true, mutability }),
    attribute({
      name: '$ref',
      type: 'reference',
      referenceTypes: [what],
      description: `The URI of the ${what}.`,
      caseExact: true,
      mutability,
    }),
    attribute({ name: 'display', description: `The display name of the ${what}.`, mutability: 'readOnly' }),
  ];
};

const USER_ATTRIBUTES: AttributeDefinition[] = [
  attribute({
    name: 'userName',
    description: 'Unique identifier of the user within the tenant, often an e-mail address; unique regardless of case.',
    required: true,
    uniqueness: 'server',
    stored: { column: 'username' },
  }),
  attribute({
    name: 'name',
    type: 'complex',
    description: "The components of the user's name.",
    subAttributes: [
      attribute({ name: 'givenName', description: 'Given name.', stored: { column: 'given_name' } }),
      attribute({ name: 'familyName', description: 'Family name.', stored: { column: 'family_name' } }),
    ],
  }),
  attribute({
    name: 'displayName',
    description: 'Name shown for the user; absent unless the client sets it.',
    stored: { column: 'display_name', derivedWhen: 'display_name_derived' },
  }),
  attribute({
    name: 'emails',
    type: 'complex',
    stored: { column: 'email' },
    multiValued: true,
    description: 'E-mail addresses; the primary one (or the first) is unique within the tenant regardless of case.',
    subAttributes: [
      attribute({ name: 'value', description: 'The address.' }),
      attribute({ name: 'type', description: 'A label such as work or home.' }),
      attribute({ name: 'primary', type: 'boolean', description: 'Whether this is the primary address.' }),
      attribute({ name: 'display', description: 'A display form of the address.' }),
    ],
  }),
  attribute({
    name: 'active',
    type: 'boolean',
    description: 'Whether the user may sign in; false deactivates.',
    stored: { column: 'active' },
  }),
  attribute({
    name: 'groups',
    type: 'complex',
    multiValued: true,
    mutability: 'readOnly',
    description: 'The groups the user belongs to (changed through the Group resource).',
    subAttributes: [...referenceOf('Group', true), attribute({ name: 'type', description: 'Always direct.', mutability: 'readOnly' })],
  }),
];

const ENTERPRISE_ATTRIBUTES: AttributeDefinition[] = [
  attribute({ name: 'employeeNumber', description: 'Employee number.', stored: { column: 'employee_number' } }),
  attribute({ name: 'department', description: 'Department.', stored: { column: 'department' } }),
  attribute({
    name: 'manager',
    type: 'complex',
    description: "The user's manager: a user of the same tenant.",
    subAttributes: [
      attribute({ name: 'value', description: "The manager's id.", caseExact: true, stored: { column: 'manager_id' } }),
      attribute({ name: '$ref', type: 'reference', referenceTypes: ['User'], description: "The manager's URI.", mutability: 'readOnly' }),
      attribute({ name: 'displayName', description: "The manager's display name.", mutability: 'readOnly' }),
    ],
  }),
];

const GROUP_ATTRIBUTES: AttributeDefinition[] = [
  attribute({
    name: 'displayName',
    description: 'Name of the group; unique within the tenant regardless of case.',
    required: true,
    uniqueness: 'server',
    stored: { column: 'display_name' },
  }),
  attribute({
    name: 'members',
    type: 'complex',
    multiValued: true,
    description: 'The users in the group (users of the same tenant).',
    subAttributes: [...referenceOf('User', false), attribute({ name: 'type', description: 'Always User.', mutability: 'immutable' })],
  }),
];

const STORED_META: Record<string, string> = { created: 'created_at', lastModified: 'updated_at' };

/** Attributes every resource has (RFC 7643 §3.1); a group's id is a uuid. */
const commonAttributes = (uuid: boolean): AttributeDefinition[] => [
  attribute({
    name: 'id',
    description: 'Identifier assigned by the service provider.',
    caseExact: true,
    mutability: 'readOnly',
    returned: 'always',
    uniqueness: 'server',
    stored: { column: 'id', uuid },
  }),
  attribute({
    name: 'externalId',
    description: 'Identifier assigned by the client; unique within the tenant.',
    caseExact: true,
    stored: { column: 'external_id' },
  }),
  attribute({
    name: 'meta',
    type: 'complex',
    mutability: 'readOnly',
    description: 'Resource metadata.',
    subAttributes: ['resourceType', 'created', 'lastModified', 'location', 'version'].map((name) =>
      attribute({
        name,
        type: name === 'created' || name === 'lastModified' ? 'dateTime' : name === 'location' ? 'reference' : 'string',
        caseExact: true,
        mutability: 'readOnly',
        returned: name === 'resourceType' ? 'always' : 'default',
        description: `meta.${name}`,
        ...(STORED_META[name] ? { stored: { column: STORED_META[name] } } : {}),
      }),
    ),
  }),
];

interface SchemaDefinition {
  id: string;
  name: string;
  description: string;
  attributes: AttributeDefinition[];
}

export const SCHEMAS: SchemaDefinition[] = [
  { id: USER_SCHEMA, name: 'User', description: 'User account', attributes: USER_ATTRIBUTES },
  { id: ENTERPRISE_SCHEMA, name: 'EnterpriseUser', description: 'Enterprise user extension', attributes: ENTERPRISE_ATTRIBUTES },
  { id: GROUP_SCHEMA, name: 'Group', description: 'Group', attributes: GROUP_ATTRIBUTES },
];

/** The attributes a resource's path may name: core ones (with the common ones) and per extension URN. */
interface ResourceAttributes {
  core: AttributeDefinition[];
  coreUrn: string;
  extensions: Record<string, AttributeDefinition[]>;
}

export const RESOURCE_ATTRIBUTES: Record<ResourceKind, ResourceAttributes> = {
  User: {
    core: [...commonAttributes(false), ...USER_ATTRIBUTES],
    coreUrn: USER_SCHEMA,
    extensions: { [ENTERPRISE_SCHEMA]: ENTERPRISE_ATTRIBUTES },
  },
  Group: { core: [...commonAttributes(true), ...GROUP_ATTRIBUTES], coreUrn: GROUP_SCHEMA, extensions: {} },
};

/**
 * `schemas` (RFC 7643 §3): named by `attributes` and filters, returned always; not a PATCH target
 * nor a body attribute (the resource's URNs are the server's), so not in RESOURCE_ATTRIBUTES.
 */
const SCHEMAS_ATTRIBUTE = attribute({
  name: 'schemas',
  type: 'reference',
  multiValued: true,
  caseExact: true,
  returned: 'always',
  mutability: 'readOnly',
  description: 'The URNs of the schemas the resource uses.',
});

/** One schema of a resource type: its attributes sit at the top level (core) or under the URN (extension). */
export interface ResourceSchema {
  urn: string;
  extension: boolean;
  attributes: readonly AttributeDefinition[];
}

/** The schemas of each resource type, core first: an unqualified name is looked up in that order. */
export const RESOURCE_SCHEMAS: Record<ResourceKind, readonly ResourceSchema[]> = {
  User: [
    { urn: USER_SCHEMA, extension: false, attributes: [SCHEMAS_ATTRIBUTE, ...RESOURCE_ATTRIBUTES.User.core] },
    { urn: ENTERPRISE_SCHEMA, extension: true, attributes: ENTERPRISE_ATTRIBUTES },
  ],
  Group: [{ urn: GROUP_SCHEMA, extension: false, attributes: [SCHEMAS_ATTRIBUTE, ...RESOURCE_ATTRIBUTES.Group.core] }],
};

export function findAttribute(list: readonly AttributeDefinition[] | undefined, name: string): AttributeDefinition | undefined {
  const lower = name.toLowerCase();
  return list?.find((a) => a.name.toLowerCase() === lower);
}
