/**
 * `attributes` and `excludedAttributes` (RFC 7644 §3.4.2.5, §3.9): which attributes of a SCIM
 * resource a response carries. Names resolve case-insensitively through the one attribute list
 * (scim-schema.ts, resolved by scim-attribute-path.ts): short names, `name.givenName`, fully qualified URNs, or an extension's
 * URN alone for the whole extension. Attributes returned `always` (`id`, `schemas`,
 * `meta.resourceType`) stay whatever is asked.
 */
import { resolvePath } from './scim-attribute-path.ts';
import { RESOURCE_SCHEMAS, type AttributeDefinition, type ResourceKind, type ResourceSchema } from './scim-schema.ts';
import { ScimQueryError } from './scim-query-error.ts';

/** For one attribute: the whole of it (`true`) or only some sub-attributes (canonical names). */
type Selection = Map<AttributeDefinition, true | Set<string>>;

/** The attributes a parameter names, per schema. */
function select(kind: ResourceKind, parameter: string, name: string): Map<ResourceSchema, Selection> {
  const chosen = new Map<ResourceSchema, Selection>();
  const add = (schema: ResourceSchema, attribute: AttributeDefinition, sub?: AttributeDefinition) => {
    const selection = chosen.get(schema) ?? new Map<AttributeDefinition, true | Set<string>>();
    chosen.set(schema, selection);
    const current = selection.get(attribute);
    if (!sub) selection.set(attribute, true);
    else if (current !== true) selection.set(attribute, (current ?? new Set<string>()).add(sub.name));
  };
  for (const raw of parameter.split(',')) {
    const path = raw.trim();
    if (path === '') continue;
    const resolved = resolvePath(kind, path);
    if (!resolved) throw new ScimQueryError('invalidValue', `${name}: ${path} is not an attribute of a ${kind}`);
    if ('schemaOnly' in resolved) for (const attribute of resolved.schemaOnly.attributes) add(resolved.schemaOnly, attribute);
    else add(resolved.schema, resolved.attribute, resolved.subAttribute);
  }
  return chosen;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Keeps (`keep`) or drops the listed sub-attributes of a complex value, element by element when multi-valued. */
function pickSubAttributes(value: unknown, subs: Set<string>, keep: boolean, always: Set<string>): unknown {
  const one = (item: unknown) => {
    if (!isObject(item)) return item;
    return Object.fromEntries(Object.entries(item).filter(([key]) => always.has(key) || subs.has(key) === keep));
  };
  return Array.isArray(value) ? value.map(one) : one(value);
}

const alwaysSubs = (attribute: AttributeDefinition) =>
  new Set((attribute.subAttributes ?? []).filter((s) => s.returned === 'always').map((s) => s.name));

/**
 * The part of `container` (the resource, or an extension's object) that `schema` describes,
 * projected. Including builds from the schema's attributes; excluding starts from everything the
 * container has, so a key this list does not know is dropped only when asked for by name (never).
 */
function projectSchema(
  container: Record<string, unknown>,
  schema: ResourceSchema,
  selection: Selection | undefined,
  mode: 'include' | 'exclude',
): Record<string, unknown> {
  if (mode === 'exclude') {
    const out = { ...container };
    for (const [attribute, chosen] of selection ?? []) {
      if (attribute.returned === 'always' || !(attribute.name in out)) continue;
      const always = alwaysSubs(attribute);
      if (chosen !== true) out[attribute.name] = pickSubAttributes(out[attribute.name], chosen, false, always);
      else if (always.size > 0) out[attribute.name] = pickSubAttributes(out[attribute.name], always, true, always);
      else delete out[attribute.name];
    }
    return out;
  }
  const out: Record<string, unknown> = {};
  for (const attribute of schema.attributes) {
    if (!(attribute.name in container)) continue;
    const value = container[attribute.name];
    const chosen = selection?.get(attribute);
    const always = alwaysSubs(attribute);
    if (attribute.returned === 'always' || chosen === true) out[attribute.name] = value;
    else if (chosen) out[attribute.name] = pickSubAttributes(value, chosen, true, always);
    else if (always.size > 0) out[attribute.name] = pickSubAttributes(value, always, true, always);
  }
  return out;
}

function project(
  resource: Record<string, unknown>,
  kind: ResourceKind,
  chosen: Map<ResourceSchema, Selection>,
  mode: 'include' | 'exclude',
) {
  const [core, ...extensions] = RESOURCE_SCHEMAS[kind];
  const out = projectSchema(resource, core!, chosen.get(core!), mode);
  for (const schema of extensions) {
    const extension = resource[schema.urn];
    const projected = isObject(extension) ? projectSchema(extension, schema, chosen.get(schema), mode) : {};
    if (Object.keys(projected).length > 0) out[schema.urn] = projected;
    else delete out[schema.urn];
  }
  return out;
}

/** A resource with some attributes left out: those `returned: always` (id, schemas, meta) stay. */
type Projected<R> = Partial<R> & Pick<R, Extract<keyof R, 'id' | 'schemas' | 'meta'>>;

/**
 * The resource with only the attributes `attributes` names (when given), less those
 * `excludedAttributes` names (when given). Unknown names → ScimQueryError('invalidValue').
 * The resource is not modified.
 */
export function projectAttributes<R extends Record<string, unknown>>(
  resource: R,
  kind: ResourceKind,
  options: { attributes?: string; excludedAttributes?: string },
): Projected<R> {
  const included = options.attributes?.trim() ? select(kind, options.attributes, 'attributes') : undefined;
  const excluded = options.excludedAttributes?.trim() ? select(kind, options.excludedAttributes, 'excludedAttributes') : undefined;
  if (!included && !excluded) return resource;
  const narrowed = included ? project(resource, kind, included, 'include') : resource;
  return (excluded ? project(narrowed, kind, excluded, 'exclude') : narrowed) as Projected<R>;
}
