/**
 * The comparison behind `npm run spec:diff` (scripts/spec-diff.ts, whose header says what is a change
 * and at what level): the specs at a git ref against the working tree's, the SDL with
 * @graphql-inspector/core and each bundled OpenAPI document with api-smart-diff. Loaded only when
 * the specs differ from the ref: these libraries are most of the command's start-up.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CriticalityLevel, diff as graphqlDiff, type Change } from '@graphql-inspector/core';
import { apiCompare, type Diff } from 'api-smart-diff';
import {
  buildSchema,
  getDirectiveValues,
  isInputObjectType,
  isInterfaceType,
  isObjectType,
  type GraphQLField,
  type GraphQLInputField,
  type GraphQLSchema,
} from 'graphql';
import { loadSdl } from '../generate/graphql.ts';
import { bundleDocument, listDocuments } from '../generate/openapi.ts';
import { PATH_ITEM_METHODS } from '../../src/http/openapi-methods.ts';
import { LEVELS, SPEC_PATHS, type Level, type SpecChange } from './change.ts';

type Json = Record<string, unknown>;

const METHODS = new Set<string>(PATH_ITEM_METHODS);
/** Upper and lower bounds: lowering an upper bound narrows what is accepted, raising a lower one too. */
const UPPER = new Set(['maxLength', 'maxItems', 'maximum', 'exclusiveMaximum', 'maxProperties', 'max']);
const LOWER = new Set(['minLength', 'minItems', 'minimum', 'exclusiveMinimum', 'minProperties', 'min']);

/** A value as printed: strings bare, lists of scalars joined, a short object as JSON, else null. */
function show(value: unknown): string | null {
  if (value === undefined) return null;
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && value.every((v) => v === null || typeof v !== 'object')) return value.map((v) => show(v)).join(', ');
  const json = JSON.stringify(value);
  return json.length <= 80 ? json : null;
}

/** `added`, `removed`, `increased`/`decreased` for numbers, `changed`. */
function verb(action: string, before: unknown, after: unknown): string {
  if (action === 'add') return 'added';
  if (action === 'remove') return 'removed';
  if (action === 'rename') return 'renamed';
  if (typeof before === 'number' && typeof after === 'number') return after > before ? 'increased' : 'decreased';
  return 'changed';
}

/**
 * Whether a change of `keyword` (`maxLength`, `enum`, `required`, `pattern`, …) narrows what is
 * accepted where it applies; undefined when the keyword is not a constraint this file rules on.
 */
function narrows(keyword: string, action: string, before: unknown, after: unknown, element: boolean): boolean | undefined {
  if (element) {
    // An element of `enum`, `oneOf` (of @constraint) or `required`.
    if (keyword === 'enum' || keyword === 'oneOf') return action !== 'add';
    if (keyword === 'required') return action !== 'remove';
    return undefined;
  }
  const replaced = action === 'replace' && typeof before === 'number' && typeof after === 'number';
  if (UPPER.has(keyword)) return action === 'add' || (replaced && after < before);
  if (LOWER.has(keyword)) return action === 'add' || (replaced && after > before);
  if (keyword === 'pattern' || keyword === 'format') return action !== 'remove';
  return undefined;
}

/** `node`, following local `$ref`s. */
function deref(doc: Json, node: unknown): unknown {
  for (let hops = 0; hops < 20 && node && typeof node === 'object' && typeof (node as Json).$ref === 'string'; hops++) {
    const ref = (node as Json).$ref as string;
    if (!ref.startsWith('#/')) break;
    node = at(
      doc,
      ref
        .slice(2)
        .split('/')
        .map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~')),
    );
  }
  return node;
}

/** The node at `segments` of `doc`, through `$ref`s as api-smart-diff walks them. */
function at(doc: Json, segments: ReadonlyArray<string | number>): unknown {
  let node: unknown = doc;
  for (const s of segments) {
    node = deref(doc, node);
    if (!node || typeof node !== 'object') return undefined;
    node = (node as Json)[String(s)];
  }
  return node;
}

interface Located {
  location: string;
  /** What the path names after the location: `maxLength`, `enum/5`, `required/2`, or nothing (the node itself). */
  keyword: string[];
  /** What the node is, for a change of the whole node: property, parameter, operation, … */
  subject: string;
  /** `in`: the client sends it (a request); `out`: the client receives it (a response). */
  direction?: 'in' | 'out';
  /** The location ends in a field of a schema (`.name[]`), not at the body, parameter or header. */
  inField?: boolean;
}

/** Schema segments: `properties/name/items/maxLength` → `.name[]` and the keyword `maxLength`. */
function schemaPath(segments: string[]): { field: string; keyword: string[]; subject: string } {
  let field = '';
  let subject = 'schema';
  let i = 0;
  while (i < segments.length) {
    const [s, next] = [segments[i], segments[i + 1]];
    if (s === 'properties' && next !== undefined) [field, subject, i] = [`${field}.${next}`, 'property', i + 2];
    else if (s === 'items') [field, subject, i] = [`${field}[]`, 'items', i + 1];
    else if (s === 'additionalProperties') [field, subject, i] = [`${field}.*`, 'additionalProperties', i + 1];
    else if (s === 'allOf' && next !== undefined) i += 2;
    else if ((s === 'oneOf' || s === 'anyOf' || s === 'prefixItems') && next !== undefined)
      [field, subject, i] = [`${field} ${s}[${next}]`, 'schema', i + 2];
    else break;
  }
  return { field, keyword: segments.slice(i), subject };
}

/** Where an api-smart-diff path points: `paths//api/v1/products/post/requestBody/content/application/json/schema/properties/name/maxLength`. */
function locate(p: string[], before: Json, after: Json): Located {
  if (p[0] !== 'paths' && p[0] !== 'webhooks') return { location: p.slice(0, 3).join('.'), keyword: p.slice(3), subject: p[0] ?? '' };
  const webhook = p[0] === 'webhooks';
  const method = p[2] !== undefined && METHODS.has(p[2]) ? p[2].toUpperCase() : undefined;
  const operation = webhook ? `webhook ${p[1]}${method ? ` ${method}` : ''}` : method ? `${method} ${p[1]}` : String(p[1]);
  const base = method ? 3 : 2;
  const rest = p.slice(base);
  const flip = (d: 'in' | 'out'): 'in' | 'out' => (webhook ? (d === 'in' ? 'out' : 'in') : d);
  const withSchema = (where: string, from: number, direction: 'in' | 'out', subject: string): Located => {
    if (rest[from] !== 'schema') return { location: where, keyword: rest.slice(from), subject, direction: flip(direction) };
    const s = schemaPath(rest.slice(from + 1));
    const location = `${where}${s.field ? ` ${s.field}` : ''}`;
    return { location, keyword: s.keyword, subject: s.subject, direction: flip(direction), inField: s.field !== '' };
  };
  if (rest[0] === 'parameters' && rest[1] !== undefined) {
    const parameter = p.slice(0, base + 2);
    const param = (deref(after, at(after, parameter)) ?? deref(before, at(before, parameter))) as Json | undefined;
    const name = param ? `${String(param.in)} parameter ${String(param.name)}` : `parameter ${rest[1]}`;
    return withSchema(`${operation} ${name}`, 2, 'in', 'parameter');
  }
  if (rest[0] === 'requestBody') {
    if (rest[1] === 'content' && rest[2] !== undefined) return withSchema(`${operation} request body`, 3, 'in', 'request body');
    return { location: `${operation} request body`, keyword: rest.slice(1), subject: 'request body', direction: flip('in') };
  }
  if (rest[0] === 'responses' && rest[1] !== undefined) {
    const response = `${operation} response ${rest[1]}`;
    if (rest[2] === 'content' && rest[3] !== undefined) return withSchema(response, 4, 'out', 'response body');
    if (rest[2] === 'headers' && rest[3] !== undefined) return withSchema(`${response} header ${rest[3]}`, 4, 'out', 'header');
    return { location: response, keyword: rest.slice(2), subject: 'response', direction: flip('out') };
  }
  return { location: operation, keyword: rest, subject: method ? 'operation' : 'path' };
}

/** One api-smart-diff diff as a line; null for a component's own copy of a change reported where it is used. */
function openApiChange(file: string, d: Diff, before: Json, after: Json): SpecChange | null {
  const p = d.path.map(String);
  // Components reached through a $ref are reported at each use; security schemes are used by name.
  if (p[0] === 'components' && p[1] !== 'securitySchemes') return null;
  const where = locate(p, before, after);
  const [keyword, index, ...deeper] = where.keyword;
  const element = index !== undefined && /^\d+$/.test(index) && deeper.length === 0;
  let level: Level = d.type === 'breaking' ? 'error' : 'info';
  let { location } = where;
  let change: string;
  let [old, now] =
    d.action === 'add' ? [null, show(d.after)] : d.action === 'remove' ? [show(d.before), null] : [show(d.before), show(d.after)];
  if (keyword === undefined) {
    change = `${where.subject} ${verb(d.action, d.before, d.after)}`;
    if (d.action !== 'replace') [old, now] = [null, null];
  } else if (element && keyword === 'required') {
    location = `${location}${where.inField ? '' : ' '}.${show(d.action === 'remove' ? d.before : d.after)}`;
    change = d.action === 'remove' ? 'no longer required' : 'became required';
    [old, now] = d.action === 'remove' ? ['required', 'optional'] : ['optional', 'required'];
  } else if (element) {
    change = `${keyword} value ${verb(d.action, d.before, d.after)}`;
  } else {
    change = `${where.keyword.join('.')} ${verb(d.action, d.before, d.after)}`;
  }
  if (where.direction === 'out' && keyword === undefined && where.subject === 'property' && d.action === 'remove') {
    // What clients receive loses a property: breaking if it was required, a warning if optional.
    const parent = deref(before, at(before, p.slice(0, -2))) as Json | undefined;
    level = Array.isArray(parent?.required) && parent.required.includes(p.at(-1)) ? 'error' : 'warning';
  } else if (where.direction === 'out' && element && keyword === 'required') {
    level = d.action === 'remove' ? 'error' : 'info';
  } else if (where.direction && keyword !== undefined && (element || index === undefined)) {
    const narrowed = narrows(keyword, d.action, d.before, d.after, element);
    if (narrowed !== undefined) {
      if (where.direction === 'in') level = narrowed ? 'error' : 'info';
      else if (keyword !== 'pattern' && keyword !== 'format') level = narrowed ? 'info' : 'warning';
    }
  }
  return { level, file, location, change, old, new: now };
}

/**
 * The document without its annotations (descriptions, summaries, titles, examples), which are not
 * client-visible changes. Besides, api-smart-diff misreads a schema carrying a description beside a
 * `$ref` or a `oneOf` (allowed in OpenAPI 3.1) as a different schema, and would report each property
 * of it as changed. A property *named* `description` or `example` is kept.
 */
function withoutAnnotations(node: unknown, parentKey = ''): unknown {
  if (Array.isArray(node)) return node.map((v) => withoutAnnotations(v));
  if (!node || typeof node !== 'object') return node;
  const kept = Object.entries(node as Json).filter(([key, value]) => {
    if (parentKey === 'properties') return true;
    if (key === 'example' || key === 'examples') return false;
    return !(['description', 'summary', 'title'].includes(key) && typeof value === 'string');
  });
  return Object.fromEntries(kept.map(([key, value]) => [key, withoutAnnotations(value, key)]));
}

async function openApiChanges(beforeRoot: string, afterRoot: string): Promise<SpecChange[]> {
  const changes: SpecChange[] = [];
  const names = [
    ...new Set([...listDocuments(path.join(beforeRoot, 'openapi')), ...listDocuments(path.join(afterRoot, 'openapi'))]),
  ].sort();
  for (const name of names) {
    const file = `openapi/${name}.yaml`;
    const load = async (root: string): Promise<Json | null> => {
      const full = path.join(root, file);
      return fs.existsSync(full) ? (withoutAnnotations(await bundleDocument(full)) as Json) : null;
    };
    const [before, after] = [await load(beforeRoot), await load(afterRoot)];
    if (!before || !after) {
      const level = before ? 'error' : 'info';
      changes.push({ level, file, location: file, change: before ? 'document removed' : 'document added', old: null, new: null });
      continue;
    }
    for (const d of apiCompare(before, after).diffs) {
      if (d.type === 'annotation' || d.type === 'unclassified') continue;
      const change = openApiChange(file, d, before, after);
      if (change) changes.push(change);
    }
  }
  return changes;
}

/** graphql-inspector's `old…` and `new…` meta values (a type, a default), when there is one of each. */
function metaValues(meta: Record<string, unknown>): [string | null, string | null] {
  const pick = (prefix: RegExp) => {
    const values = Object.entries(meta).filter(([k, v]) => prefix.test(k) && (typeof v === 'string' || typeof v === 'number'));
    return values.length === 1 ? show(values[0]?.[1]) : null;
  };
  return [pick(/^old[A-Z]/), pick(/^new[A-Z]/)];
}

/** The `@constraint` arguments of an input field or an argument; {} without one. */
function constraintOf(schema: GraphQLSchema, field: GraphQLInputField | GraphQLField<unknown, unknown>['args'][number]): Json {
  const directive = schema.getDirective('constraint');
  return (directive && field.astNode && getDirectiveValues(directive, field.astNode)) || {};
}

/** Every `@constraint` keyword changed on an input field or argument present before and after. */
function constraintChanges(before: GraphQLSchema, after: GraphQLSchema): SpecChange[] {
  const changes: SpecChange[] = [];
  const compare = (location: string, old: Json, now: Json) => {
    for (const keyword of [...new Set([...Object.keys(old), ...Object.keys(now)])]) {
      const [o, n] = [old[keyword], now[keyword]];
      if (JSON.stringify(o) === JSON.stringify(n)) continue;
      const where = `${location} @constraint`;
      if (keyword === 'oneOf' && Array.isArray(o) && Array.isArray(n)) {
        for (const v of o.filter((v) => !n.includes(v)))
          changes.push({ level: 'error', file: 'schema/', location: where, change: 'oneOf value removed', old: show(v), new: null });
        for (const v of n.filter((v) => !o.includes(v)))
          changes.push({ level: 'info', file: 'schema/', location: where, change: 'oneOf value added', old: null, new: show(v) });
        continue;
      }
      const action = o === undefined ? 'add' : n === undefined ? 'remove' : 'replace';
      // Any other keyword (oneOf added or removed as a whole) narrows when it is added or changed.
      const narrowed = narrows(keyword, action, o, n, false) ?? action !== 'remove';
      const change = `${keyword} ${verb(action, o, n)}`;
      changes.push({ level: narrowed ? 'error' : 'info', file: 'schema/', location: where, change, old: show(o), new: show(n) });
    }
  };
  for (const [name, type] of Object.entries(after.getTypeMap())) {
    const was = before.getType(name);
    if (name.startsWith('__') || !was) continue;
    if (isInputObjectType(type) && isInputObjectType(was)) {
      const fields = was.getFields();
      for (const field of Object.values(type.getFields())) {
        const old = fields[field.name];
        if (old) compare(`${name}.${field.name}`, constraintOf(before, old), constraintOf(after, field));
      }
    } else if ((isObjectType(type) || isInterfaceType(type)) && (isObjectType(was) || isInterfaceType(was))) {
      const fields = was.getFields();
      for (const field of Object.values(type.getFields())) {
        for (const arg of field.args) {
          const old = fields[field.name]?.args.find((a) => a.name === arg.name);
          if (old) compare(`${name}.${field.name}(${arg.name})`, constraintOf(before, old), constraintOf(after, arg));
        }
      }
    }
  }
  return changes;
}

async function graphqlChanges(beforeRoot: string, afterRoot: string): Promise<SpecChange[]> {
  const before = buildSchema(loadSdl(beforeRoot));
  const after = buildSchema(loadSdl(afterRoot));
  const level: Record<CriticalityLevel, Level> = {
    [CriticalityLevel.Breaking]: 'error',
    [CriticalityLevel.Dangerous]: 'warning',
    [CriticalityLevel.NonBreaking]: 'info',
  };
  // A @constraint's arguments are compared by constraintChanges, which knows which way each narrows.
  const usesConstraint = (c: Change) => /\.@constraint(\.|$)/.test(c.path ?? '');
  const inspected = (await graphqlDiff(before, after))
    .filter((c) => !usesConstraint(c))
    .map((c): SpecChange => {
      const [old, now] = metaValues(c.meta as Record<string, unknown>);
      return { level: level[c.criticality.level], file: 'schema/', location: c.path ?? '', change: c.message, old, new: now };
    });
  return [...inspected, ...constraintChanges(before, after)];
}

/** The specs at `ref` (openapi/, schema/, codegen.ts), extracted into a temporary folder. */
function checkout(root: string, ref: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spec-diff-'));
  const archive = execFileSync('git', ['archive', '--format=tar', ref, ...SPEC_PATHS], {
    cwd: root,
    maxBuffer: 256 * 1024 * 1024,
  });
  execFileSync('tar', ['-x', '-C', dir], { input: archive });
  return dir;
}

/** Every change of the specs in `root` (the working tree) since `base`: errors first, each once. */
export async function compareSpecs(root: string, base: string): Promise<SpecChange[]> {
  const before = checkout(root, base);
  try {
    const all = [...(await graphqlChanges(before, root)), ...(await openApiChanges(before, root))];
    const seen = new Set<string>();
    const once = all.filter((c) => {
      const key = JSON.stringify([c.level, c.file, c.location, c.change, c.old, c.new]);
      return !seen.has(key) && seen.add(key);
    });
    return once.sort((a, b) => LEVELS.indexOf(a.level) - LEVELS.indexOf(b.level));
  } finally {
    fs.rmSync(before, { recursive: true, force: true });
  }
}
