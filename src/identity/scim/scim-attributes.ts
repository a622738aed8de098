/**
 * PROVISIONAL (i14-scim): `attributes` / `excludedAttributes` (RFC 7644 §3.4.2.5) for top-level
 * attributes and one level of sub-attributes, to be replaced by the i14-filter branch's version at
 * merge. `id`, `schemas` and `meta.resourceType` are always returned.
 */
import { ENTERPRISE_SCHEMA, GROUP_SCHEMA, USER_SCHEMA } from './scim-schema.ts';

type Json = Record<string, unknown>;

const ALWAYS = new Set(['id', 'schemas']);

/** `[container key or null, attribute, sub-attribute?]`, all lower case. */
function parsePath(path: string, kind: 'User' | 'Group'): [string | null, string, string | undefined] {
  let rest = path.trim();
  let container: string | null = null;
  const core = (kind === 'User' ? USER_SCHEMA : GROUP_SCHEMA).toLowerCase();
  if (rest.toLowerCase().startsWith(`${core}:`)) rest = rest.slice(core.length + 1);
  else if (kind === 'User' && rest.toLowerCase().startsWith(`${ENTERPRISE_SCHEMA.toLowerCase()}:`)) {
    container = ENTERPRISE_SCHEMA.toLowerCase();
    rest = rest.slice(ENTERPRISE_SCHEMA.length + 1);
  } else if (kind === 'User' && rest.toLowerCase() === ENTERPRISE_SCHEMA.toLowerCase()) {
    return [null, ENTERPRISE_SCHEMA.toLowerCase(), undefined];
  }
  const [attribute, sub] = rest.toLowerCase().split('.', 2) as [string, string | undefined];
  return [container, attribute, sub];
}

function keyOf(object: Json, lower: string): string | undefined {
  return Object.keys(object).find((k) => k.toLowerCase() === lower);
}

function list(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

export function projectAttributes(
  resource: Record<string, unknown>,
  kind: 'User' | 'Group',
  options: { attributes?: string; excludedAttributes?: string },
): Record<string, unknown> {
  const wanted = list(options.attributes);
  const excluded = list(options.excludedAttributes);
  if (!wanted.length && !excluded.length) return resource;
  const meta = resource.meta as Json | undefined;
  if (wanted.length) {
    const out: Json = {};
    for (const key of Object.keys(resource)) if (ALWAYS.has(key)) out[key] = resource[key];
    if (meta) out.meta = { resourceType: meta.resourceType };
    for (const path of wanted) {
      const [container, attribute, sub] = parsePath(path, kind);
      const source = container ? (resource[keyOf(resource, container) ?? ''] as Json | undefined) : resource;
      if (!source) continue;
      const key = keyOf(source, attribute);
      if (!key || source[key] === undefined) continue;
      const target = container ? ((out[keyOf(resource, container)!] as Json | undefined) ?? (out[keyOf(resource, container)!] = {})) : out;
      if (!sub) {
        target[key] = source[key];
        continue;
      }
      const value = source[key];
      if (Array.isArray(value)) {
        target[key] = value.map((item: Json) => {
          const subKey = keyOf(item, sub);
          return subKey ? { [subKey]: item[subKey] } : {};
        });
      } else if (value && typeof value === 'object') {
        const subKey = keyOf(value as Json, sub);
        if (subKey) target[key] = { ...(target[key] ?? {}), [subKey]: (value as Json)[subKey] };
      }
    }
    return out;
  }
  const out: Json = structuredClone(resource);
  for (const path of excluded) {
    const [container, attribute, sub] = parsePath(path, kind);
    if (!container && (ALWAYS.has(attribute) || (attribute === 'meta' && !sub))) continue;
    const source = container ? (out[keyOf(out, container) ?? ''] as Json | undefined) : out;
    if (!source) continue;
    const key = keyOf(source, attribute);
    if (!key) continue;
    if (!sub) delete source[key];
    else if (Array.isArray(source[key])) for (const item of source[key] as Json[]) delete item[keyOf(item, sub) ?? ''];
    else if (source[key] && typeof source[key] === 'object' && !(attribute === 'meta' && sub === 'resourcetype'))
      delete (source[key] as Json)[keyOf(source[key] as Json, sub) ?? ''];
  }
  return out;
}
