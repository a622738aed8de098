/**
 * Attribute paths (RFC 7644 §3.10: `[schema URN ":"] attrName ["." subAttr]`) resolved against the
 * one attribute table (scim-schema.ts), case-insensitively: what filters, `sortBy` and
 * `attributes`/`excludedAttributes` name.
 */
import { sql, type Expression } from 'kysely';
import { findAttribute, RESOURCE_SCHEMAS, type AttributeDefinition, type ResourceKind, type ResourceSchema } from './scim-schema.ts';

/** What an attribute path names: a schema, one of its attributes and maybe one sub-attribute. */
interface ResolvedPath {
  schema: ResourceSchema;
  attribute: AttributeDefinition;
  subAttribute?: AttributeDefinition;
}

/**
 * Resolves `path`; undefined for a name the resource type does not have. `schemaOnly` is set when
 * the path is a schema URN alone (meaningful to `attributes`, not to filters).
 */
export function resolvePath(kind: ResourceKind, path: string): ResolvedPath | { schemaOnly: ResourceSchema } | undefined {
  const lower = path.toLowerCase();
  let schemas = RESOURCE_SCHEMAS[kind];
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
    const attribute = findAttribute(schema.attributes, name);
    if (!attribute) continue;
    if (subName === undefined) return { schema, attribute };
    const subAttribute = findAttribute(attribute.subAttributes, subName);
    return subAttribute ? { schema, attribute, subAttribute } : undefined;
  }
  return undefined;
}

/** An attribute kept in a column of the resource's table, and the SQL of its value (`users.username`). */
interface StoredAttribute {
  attribute: AttributeDefinition;
  /** The value as a client reads it: the column, or null where the server derived it (see `derivedWhen`). */
  value: Expression<unknown>;
  uuid: boolean;
}

const TABLES: Record<ResourceKind, 'users' | 'groups'> = { User: 'users', Group: 'groups' };

/** The attributes of `kind` kept in columns, by canonical path (`userName`, `name.givenName`). */
export function storedAttributes(kind: ResourceKind): Record<string, StoredAttribute> {
  const out: Record<string, StoredAttribute> = {};
  const add = (path: string, attribute: AttributeDefinition) => {
    if (!attribute.stored) return;
    const { column, uuid = false, derivedWhen } = attribute.stored;
    const qualified = `${TABLES[kind]}.${column}`;
    const value = derivedWhen
      ? sql`(case when ${sql.ref(`${TABLES[kind]}.${derivedWhen}`)} then null else ${sql.ref(qualified)} end)`
      : sql.ref(qualified);
    out[path] = { attribute, value, uuid };
  };
  for (const schema of RESOURCE_SCHEMAS[kind]) {
    for (const attribute of schema.attributes) {
      add(attribute.name, attribute);
      for (const sub of attribute.subAttributes ?? []) add(`${attribute.name}.${sub.name}`, sub);
    }
  }
  return out;
}
