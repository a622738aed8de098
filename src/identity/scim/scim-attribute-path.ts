/**
 * Attribute paths (RFC 7644 §3.10: `[schema URN ":"] attrName ["." subAttr]`) resolved against the
 * one attribute table (scim-schema.ts), case-insensitively: what filters, `sortBy` and
 * `attributes`/`excludedAttributes` name.
 */
import { findAttribute, RESOURCE_SCHEMAS, type AttributeDefinition, type ResourceKind, type ResourceSchema } from './scim-schema.ts';

/** What an attribute path names: a schema, one of its attributes and maybe one sub-attribute. */
export interface ResolvedPath {
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
