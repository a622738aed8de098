/**
 * SCIM attribute values as the service provider keeps them: attribute names in their canonical case
 * (names are case-insensitive on the wire, RFC 7643 §2.1), booleans sent as strings ("True", as
 * Entra ID sends them) turned into booleans, and the attributes this provider does not support, or
 * that clients cannot write, left out.
 */
import { scimInvalid } from './scim-errors.ts';
import { findAttribute, RESOURCE_ATTRIBUTES, type AttributeDefinition, type ResourceKind } from './scim-schema.ts';

type Json = Record<string, unknown>;

export const isObject = (value: unknown): value is Json => value !== null && typeof value === 'object' && !Array.isArray(value);

/** A value for an attribute, with booleans sent as strings turned into booleans and keys made canonical. */
export function coerce(definition: AttributeDefinition, value: unknown, path: string): unknown {
  if (value === null) return null;
  if (definition.multiValued && Array.isArray(value)) return value.map((item) => coerceOne(definition, item, path));
  return coerceOne(definition, value, path);
}

export function coerceOne(definition: AttributeDefinition, value: unknown, path: string): unknown {
  if (value === null) return null;
  switch (definition.type) {
    case 'boolean':
      if (typeof value === 'boolean') return value;
      if (typeof value === 'string' && /^(true|false)$/i.test(value)) return value.toLowerCase() === 'true';
      throw scimInvalid('invalidValue', `${path} must be a boolean`);
    case 'complex': {
      // A reference given as its bare id (Entra ID sends `manager` so).
      if (typeof value === 'string' && findAttribute(definition.subAttributes ?? [], 'value')) return { value };
      if (!isObject(value)) throw scimInvalid('invalidValue', `${path} must be an object`);
      const out: Json = {};
      for (const [key, item] of Object.entries(value)) {
        const sub = findAttribute(definition.subAttributes ?? [], key);
        if (sub) out[sub.name] = coerce(sub, item, `${path}.${sub.name}`);
      }
      return out;
    }
    default:
      if (typeof value !== 'string') throw scimInvalid('invalidValue', `${path} must be a string`);
      return value;
  }
}

/**
 * A POST or PUT body as a resource of canonical attributes: unknown and read-only attributes are
 * dropped (RFC 7644 §3.3 and §3.5.1 let the provider ignore them), values coerced as for PATCH.
 */
export function canonicalResource(body: Json, kind: ResourceKind): Json {
  const { core, extensions } = RESOURCE_ATTRIBUTES[kind];
  const out: Json = {};
  const take = (attributes: AttributeDefinition[], source: Json, target: Json) => {
    for (const [key, value] of Object.entries(source)) {
      const definition = findAttribute(attributes, key);
      if (!definition || definition.mutability === 'readOnly' || value === undefined) continue;
      target[definition.name] = coerce(definition, value, definition.name);
    }
  };
  take(core, body, out);
  for (const [urn, attributes] of Object.entries(extensions)) {
    const key = Object.keys(body).find((k) => k.toLowerCase() === urn.toLowerCase());
    if (key === undefined || body[key] === null) continue;
    if (!isObject(body[key])) throw scimInvalid('invalidValue', `${urn} must be an object`);
    const extension: Json = {};
    take(attributes, body[key], extension);
    out[urn] = extension;
  }
  return out;
}
