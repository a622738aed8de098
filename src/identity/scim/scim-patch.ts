/**
 * PATCH (RFC 7644 §3.5.2) applied to a resource's SCIM representation in memory: `add`, `replace` and
 * `remove` (operation names in any case), with or without `path`, paths with schema URNs, value
 * filters (`emails[type eq "work"].value`) and sub-attributes, and what Entra ID sends: booleans as
 * the strings "True"/"False" and path-less `replace` with an object of attributes. Paths resolve
 * against the supported attributes (scim-schema.ts): an unknown one is `invalidPath`, a read-only one
 * `mutability`. The caller turns the result back into storage, with the same rules as PUT.
 */
import { scimInvalid } from './scim-errors.ts';
import { findAttribute, RESOURCE_ATTRIBUTES, type AttributeDefinition, type ResourceKind } from './scim-schema.ts';
import { coerce, coerceOne, isObject } from './scim-values.ts';
import type { ScimFilter } from './scim-filter-parse.ts';
import { matchesValueFilter, parseValueFilter } from './scim-value-filter.ts';

type Json = Record<string, unknown>;

export interface PatchOperation {
  op: string;
  path?: string;
  value?: unknown;
}

interface Target {
  /** The extension URN whose object holds the attribute; null for core attributes. */
  extension: string | null;
  attribute: AttributeDefinition;
  filter?: { text: string; parsed: ScimFilter };
  sub?: AttributeDefinition;
}

const PATH = /^([A-Za-z$][\w$-]*)(?:\[(.*)\])?(?:\.([A-Za-z$][\w$-]*))?$/s;

function resolve(kind: ResourceKind, path: string): Target {
  const { core, coreUrn, extensions } = RESOURCE_ATTRIBUTES[kind];
  let rest = path.trim();
  let list = core;
  let extension: string | null = null;
  const lower = rest.toLowerCase();
  if (lower.startsWith(`${coreUrn.toLowerCase()}:`)) rest = rest.slice(coreUrn.length + 1);
  else {
    for (const [urn, attributes] of Object.entries(extensions)) {
      if (lower.startsWith(`${urn.toLowerCase()}:`)) {
        rest = rest.slice(urn.length + 1);
        list = attributes;
        extension = urn;
      }
    }
  }
  const match = PATH.exec(rest);
  if (!match) throw scimInvalid('invalidPath', `Cannot read the path: ${path}`);
  const attribute = findAttribute(list, match[1]!);
  if (!attribute) throw scimInvalid('invalidPath', `Unknown attribute in path: ${path}`);
  const target: Target = { extension, attribute };
  if (match[2] !== undefined) {
    if (!attribute.multiValued) throw scimInvalid('invalidPath', `${attribute.name} is not multi-valued, so it takes no value filter`);
    target.filter = { text: match[2], parsed: parseValueFilter(match[2]) };
  }
  if (match[3] !== undefined) {
    const sub = findAttribute(attribute.subAttributes ?? [], match[3]);
    if (!sub) throw scimInvalid('invalidPath', `Unknown sub-attribute in path: ${path}`);
    target.sub = sub;
  }
  if (attribute.mutability === 'readOnly' || target.sub?.mutability === 'readOnly') throw scimInvalid('mutability', `${path} is read-only`);
  return target;
}

/** The object an attribute lives in: the resource, or its extension object (created on demand). */
function containerOf(resource: Json, target: Target, create: boolean): Json | undefined {
  if (!target.extension) return resource;
  const existing = resource[target.extension];
  if (isObject(existing)) return existing;
  if (!create) return undefined;
  const made: Json = {};
  resource[target.extension] = made;
  return made;
}

function sameElement(a: unknown, b: unknown): boolean {
  if (isObject(a) && isObject(b) && 'value' in a && 'value' in b) return a.value === b.value && (a.type ?? null) === (b.type ?? null);
  return JSON.stringify(a) === JSON.stringify(b);
}

/** For `attr[sub eq "x"].other` with no match: the element the filter describes, to create. */
function elementFromEqFilter(filter: ScimFilter, attribute: AttributeDefinition): Json | null {
  if (filter.op !== 'eq' || filter.compValue === null) return null;
  const sub = findAttribute(attribute.subAttributes ?? [], filter.attrPath);
  return sub ? { [sub.name]: filter.compValue } : null;
}

/**
 * RFC 7643 §2.4: `primary: true` appears at most once. A value an operation writes with it makes the
 * other values of the attribute non-primary (RFC 7644 §3.5.2.1, §3.5.2.3).
 */
function demoteOtherPrimaries(list: unknown[], written: readonly unknown[]): void {
  if (!written.some((element) => isObject(element) && element.primary === true)) return;
  for (const element of list) if (!written.includes(element) && isObject(element) && element.primary === true) element.primary = false;
}

function applyOne(resource: Json, kind: ResourceKind, op: 'add' | 'replace' | 'remove', path: string, rawValue: unknown): void {
  const target = resolve(kind, path);
  const { attribute, sub, filter } = target;
  const name = attribute.name;
  const caseExact = (subName: string) => findAttribute(attribute.subAttributes ?? [], subName)?.caseExact ?? false;

  if (op === 'remove') {
    const container = containerOf(resource, target, false);
    if (!container) return;
    const current = container[name];
    if (!filter && !sub) {
      // `remove members` with a value lists the members to remove (Entra ID); without one, all go.
      if (attribute.multiValued && Array.isArray(current) && rawValue !== undefined && rawValue !== null) {
        const removed = (Array.isArray(rawValue) ? rawValue : [rawValue]).map((v) => coerceOne(attribute, v, path));
        container[name] = current.filter(
          (element) => !removed.some((r) => sameElement(element, r) || (isObject(r) && isObject(element) && r.value === element.value)),
        );
      } else delete container[name];
      return;
    }
    if (attribute.multiValued) {
      if (!Array.isArray(current)) return;
      const matches = (element: unknown) => !filter || matchesValueFilter(filter.parsed, element, caseExact);
      if (!sub) container[name] = current.filter((element) => !matches(element));
      else for (const element of current) if (matches(element) && isObject(element)) delete element[sub.name];
      return;
    }
    if (isObject(current) && sub) delete current[sub.name];
    return;
  }

  if (rawValue === undefined) throw scimInvalid('invalidValue', `${op} ${path} needs a value`);
  const container = containerOf(resource, target, true)!;

  if (!filter && !sub) {
    const value = coerce(attribute, rawValue, path);
    if (attribute.multiValued) {
      const items = value === null ? [] : Array.isArray(value) ? value : [value];
      if (op === 'replace') container[name] = items;
      else {
        const current = Array.isArray(container[name]) ? [...(container[name] as unknown[])] : [];
        for (const item of items) if (!current.some((existing) => sameElement(existing, item))) current.push(item);
        demoteOtherPrimaries(current, items);
        container[name] = current;
      }
    } else if (attribute.type === 'complex' && isObject(value)) {
      // Sub-attributes not given are left as they are (RFC 7644 §3.5.2.1 and §3.5.2.3).
      container[name] = { ...(isObject(container[name]) ? container[name] : {}), ...value };
    } else container[name] = value;
    return;
  }

  if (!attribute.multiValued) {
    // `name.givenName`, `urn:…:enterprise:2.0:User:manager.value`
    const current = isObject(container[name]) ? container[name] : {};
    container[name] = { ...current, [sub!.name]: coerce(sub!, rawValue, path) };
    return;
  }

  const current = Array.isArray(container[name]) ? (container[name] as unknown[]) : [];
  const matches = (element: unknown) => !filter || matchesValueFilter(filter.parsed, element, caseExact);
  const matched = current.filter(matches);
  if (sub) {
    const value = coerce(sub, rawValue, path);
    if (matched.length) {
      for (const element of matched) if (isObject(element)) element[sub.name] = value;
      demoteOtherPrimaries(current, matched);
      return;
    }
    // `add` of `emails[type eq "work"].value` on a user without a work address adds one (what Entra ID
    // sends); `replace` changes existing values only, so a filter matching none is `noTarget`
    // (RFC 7644 §3.5.2.3).
    if (op === 'replace' && filter) throw scimInvalid('noTarget', `No value matches ${path}`);
    const created = filter ? elementFromEqFilter(filter.parsed, attribute) : {};
    if (!created) throw scimInvalid('noTarget', `No value matches ${path}`);
    const element = { ...created, [sub.name]: value };
    container[name] = [...current, element];
    demoteOtherPrimaries(container[name] as unknown[], [element]);
    return;
  }
  if (!matched.length) throw scimInvalid('noTarget', `No value matches ${path}`);
  const value = coerceOne(attribute, rawValue, path);
  const written: unknown[] = [];
  container[name] = current.map((element) => {
    if (!matches(element)) return element;
    const next = op === 'replace' ? structuredClone(value) : { ...(isObject(element) ? element : {}), ...(isObject(value) ? value : {}) };
    written.push(next);
    return next;
  });
  demoteOtherPrimaries(container[name] as unknown[], written);
}

function operationName(op: unknown): 'add' | 'replace' | 'remove' {
  const lower = typeof op === 'string' ? op.toLowerCase() : '';
  if (lower === 'add' || lower === 'replace' || lower === 'remove') return lower;
  throw scimInvalid('invalidSyntax', `Unknown PATCH operation: ${String(op)}; expected add, replace or remove`);
}

/** Applies `operations` in order to a copy of `resource` and returns it; the input is left untouched. */
export function applyPatch(resource: Json, kind: ResourceKind, operations: readonly PatchOperation[]): Json {
  const out = structuredClone(resource);
  const { coreUrn, extensions } = RESOURCE_ATTRIBUTES[kind];
  for (const operation of operations) {
    const op = operationName(operation.op);
    const extension = Object.keys(extensions).find((u) => u.toLowerCase() === operation.path?.trim().toLowerCase());
    if (extension) {
      // The whole extension object: removed, or its attributes added / replaced one by one.
      if (op === 'remove') delete out[extension];
      else if (!isObject(operation.value)) throw scimInvalid('invalidValue', `${extension} must be an object of attributes`);
      else for (const [inner, value] of Object.entries(operation.value)) applyOne(out, kind, op, `${extension}:${inner}`, value);
      continue;
    }
    if (operation.path !== undefined) {
      applyOne(out, kind, op, operation.path, operation.value);
      continue;
    }
    if (op === 'remove') throw scimInvalid('noTarget', 'remove needs a path');
    if (!isObject(operation.value)) throw scimInvalid('invalidValue', `${op} without a path needs an object of attributes as its value`);
    for (const [key, value] of Object.entries(operation.value)) {
      const lower = key.toLowerCase();
      // Okta renames a group with `{"id": …, "displayName": …}`: read-only attributes in a path-less
      // value are ignored as in a PUT body (with a path they are a `mutability` error).
      if (lower === 'schemas' || findAttribute(RESOURCE_ATTRIBUTES[kind].core, key)?.mutability === 'readOnly') continue;
      const urn = [coreUrn, ...Object.keys(extensions)].find((u) => u.toLowerCase() === lower);
      if (urn) {
        if (!isObject(value)) throw scimInvalid('invalidValue', `${key} must be an object of attributes`);
        for (const [inner, innerValue] of Object.entries(value)) applyOne(out, kind, op, `${urn}:${inner}`, innerValue);
      } else applyOne(out, kind, op, key, value);
    }
  }
  return out;
}
