/**
 * The SCIM attributes this server keeps (RFC 7643 §4.1, §4.2, §4.3), by resource type: the one list
 * that filters, `sortBy` and `attributes`/`excludedAttributes` resolve names against, so a name one
 * of them accepts the others know too. Where each attribute is stored is the filter translator's
 * business (scim-filter-sql.ts); this module only knows names, types and schemas.
 */

export type ScimResourceKind = 'User' | 'Group';

export const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const ENTERPRISE_USER_SCHEMA = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
export const GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group';

export type ScimAttributeType = 'string' | 'boolean' | 'dateTime' | 'reference' | 'complex';

export interface ScimAttribute {
  /** The canonical spelling, as the resource's JSON uses it. */
  name: string;
  type: ScimAttributeType;
  multiValued: boolean;
  caseExact: boolean;
  /** `always`: returned whatever `attributes`/`excludedAttributes` say (RFC 7643 §7). */
  returned: 'always' | 'default';
  subAttributes?: readonly ScimAttribute[];
}

export interface ScimSchema {
  urn: string;
  /** Where the schema's attributes sit in the resource: the top level (core) or under the URN (extension). */
  extension: boolean;
  attributes: readonly ScimAttribute[];
}

const attr = (name: string, type: ScimAttributeType, options: Partial<Omit<ScimAttribute, 'name' | 'type'>> = {}): ScimAttribute => ({
  name,
  type,
  multiValued: false,
  caseExact: false,
  returned: 'default',
  ...options,
});

const META = attr('meta', 'complex', {
  subAttributes: [
    attr('resourceType', 'string', { caseExact: true, returned: 'always' }),
    attr('created', 'dateTime'),
    attr('lastModified', 'dateTime'),
    attr('location', 'reference', { caseExact: true }),
    attr('version', 'string', { caseExact: true }),
  ],
});

const COMMON = [
  attr('schemas', 'reference', { multiValued: true, caseExact: true, returned: 'always' }),
  attr('id', 'string', { caseExact: true, returned: 'always' }),
  attr('externalId', 'string', { caseExact: true }),
  META,
];

const USER_CORE: ScimSchema = {
  urn: USER_SCHEMA,
  extension: false,
  attributes: [
    ...COMMON,
    attr('userName', 'string'),
    attr('name', 'complex', { subAttributes: [attr('givenName', 'string'), attr('familyName', 'string')] }),
    attr('displayName', 'string'),
    attr('emails', 'complex', {
      multiValued: true,
      subAttributes: [attr('value', 'string'), attr('type', 'string'), attr('primary', 'boolean'), attr('display', 'string')],
    }),
    attr('active', 'boolean'),
    attr('groups', 'complex', {
      multiValued: true,
      subAttributes: [
        attr('value', 'string', { caseExact: true }),
        attr('display', 'string'),
        attr('$ref', 'reference', { caseExact: true }),
        attr('type', 'string'),
      ],
    }),
  ],
};

const USER_ENTERPRISE: ScimSchema = {
  urn: ENTERPRISE_USER_SCHEMA,
  extension: true,
  attributes: [
    attr('employeeNumber', 'string'),
    attr('department', 'string'),
    attr('manager', 'complex', {
      subAttributes: [
        attr('value', 'string', { caseExact: true }),
        attr('$ref', 'reference', { caseExact: true }),
        attr('displayName', 'string'),
      ],
    }),
  ],
};

const GROUP_CORE: ScimSchema = {
  urn: GROUP_SCHEMA,
  extension: false,
  attributes: [
    ...COMMON,
    attr('displayName', 'string'),
    attr('members', 'complex', {
      multiValued: true,
      subAttributes: [
        attr('value', 'string', { caseExact: true }),
        attr('display', 'string'),
        attr('$ref', 'reference', { caseExact: true }),
        attr('type', 'string'),
      ],
    }),
  ],
};

/** The schemas of each resource type, core first: an unqualified name is looked up in that order. */
export const SCIM_SCHEMAS: Record<ScimResourceKind, readonly ScimSchema[]> = {
  User: [USER_CORE, USER_ENTERPRISE],
  Group: [GROUP_CORE],
};

/** What an attribute path names: a schema, one of its attributes and maybe one sub-attribute. */
export interface ResolvedPath {
  schema: ScimSchema;
  attribute: ScimAttribute;
  subAttribute?: ScimAttribute;
}

const findByName = (list: readonly ScimAttribute[] | undefined, name: string) =>
  list?.find((a) => a.name.toLowerCase() === name.toLowerCase());

/**
 * Resolves `attrPath` (RFC 7644 §3.10: `[schema URN ":"] attrName ["." subAttr]`), case-insensitively.
 * Returns undefined for a name the resource type does not have. `schemaOnly` is set when the path is
 * a schema URN alone (meaningful to `attributes`, not to filters).
 */
export function resolvePath(kind: ScimResourceKind, path: string): ResolvedPath | { schemaOnly: ScimSchema } | undefined {
  const lower = path.toLowerCase();
  let schemas = SCIM_SCHEMAS[kind];
  let rest = path;
  if (lower.startsWith('urn:')) {
    const schema = schemas.find((s) => lower === s.urn.toLowerCase() || lower.startsWith(`${s.urn.toLowerCase()}:`));
    if (!schema) return undefined;
    if (lower === schema.urn.toLowerCase()) return { schemaOnly: schema };
    schemas = [schema];
    rest = path.slice(schema.urn.length + 1);
  }
  const parts = rest.split('.');
  if (parts.length > 2 || parts.some((p) => p === '')) return undefined;
  const [name = '', subName] = parts;
  for (const schema of schemas) {
    const attribute = findByName(schema.attributes, name);
    if (!attribute) continue;
    if (subName === undefined) return { schema, attribute };
    const subAttribute = findByName(attribute.subAttributes, subName);
    return subAttribute ? { schema, attribute, subAttribute } : undefined;
  }
  return undefined;
}

/** Resolves a sub-attribute name inside a value path (`emails[type eq "work"]`): a bare name only. */
export function resolveSubAttribute(attribute: ScimAttribute, name: string): ScimAttribute | undefined {
  return findByName(attribute.subAttributes, name);
}
