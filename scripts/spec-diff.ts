/**
 * `npm run spec:diff [base] [-- --accept-breaking]`: what the specs' changes since a git ref (default
 * HEAD; HEAD~1 in `npm test`) do to clients. The SDL is compared with @graphql-inspector/core, each
 * OpenAPI document (bundled, as published) with api-smart-diff, which reads OpenAPI 3.1 schemas as
 * JSON Schema 2020-12. Every change is BREAKING, DANGEROUS (GraphQL only: safe for old clients but
 * may change what they see) or SAFE; descriptions and examples are not changes.
 *
 * Exits 1 on a breaking change unless it is marked: `--accept-breaking`, or a line starting with
 * `BREAKING CHANGE:` in the message of a commit after the base (the Conventional Commits footer),
 * saying what clients must do.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { CriticalityLevel, diff as graphqlDiff } from '@graphql-inspector/core';
import { apiCompare } from 'api-smart-diff';
import { buildSchema } from 'graphql';
import { loadSdl } from './generate/graphql.ts';
import { bundleDocument, listDocuments } from './generate/openapi.ts';
import { PATH_ITEM_METHODS } from '../src/http/openapi-methods.ts';

type Json = Record<string, unknown>;
export type Severity = 'BREAKING' | 'DANGEROUS' | 'SAFE';

export interface SpecChange {
  /** `schema/` or the OpenAPI document's file. */
  spec: string;
  severity: Severity;
  /** Where: `Query.posts`, `POST /api/v1/products`, … */
  where: string;
  message: string;
}

const METHODS = new Set<string>(PATH_ITEM_METHODS);

/** `paths//api/v1/products/post/requestBody/...` → `POST /api/v1/products`. */
function operationOf(pathParts: ReadonlyArray<string | number>): string {
  if (pathParts[0] !== 'paths') return String(pathParts.slice(0, 3).join('/'));
  const methodAt = pathParts.findIndex((p, i) => i >= 2 && METHODS.has(String(p)));
  return methodAt > 0 ? `${String(pathParts[methodAt]).toUpperCase()} ${String(pathParts[1])}` : String(pathParts[1]);
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
    const spec = `openapi/${name}.yaml`;
    const load = async (root: string): Promise<Json | null> => {
      const file = path.join(root, spec);
      return fs.existsSync(file) ? (withoutAnnotations(await bundleDocument(file)) as Json) : null;
    };
    const [before, after] = [await load(beforeRoot), await load(afterRoot)];
    if (!before || !after) {
      if (before) changes.push({ spec, severity: 'BREAKING', where: spec, message: 'the document was removed' });
      else changes.push({ spec, severity: 'SAFE', where: spec, message: 'the document was added' });
      continue;
    }
    const seen = new Set<string>();
    for (const d of apiCompare(before, after).diffs) {
      if (d.type === 'annotation' || d.type === 'unclassified') continue;
      const severity: Severity = d.type === 'breaking' ? 'BREAKING' : 'SAFE';
      const where = operationOf(d.path);
      const message = d.description ?? `${d.action} ${d.path.join('/')}`;
      const key = `${severity} ${where} ${message}`;
      if (seen.has(key)) continue;
      seen.add(key);
      changes.push({ spec, severity, where, message });
    }
  }
  return changes;
}

async function graphqlChanges(beforeRoot: string, afterRoot: string): Promise<SpecChange[]> {
  const before = buildSchema(loadSdl(beforeRoot));
  const after = buildSchema(loadSdl(afterRoot));
  const level: Record<CriticalityLevel, Severity> = {
    [CriticalityLevel.Breaking]: 'BREAKING',
    [CriticalityLevel.Dangerous]: 'DANGEROUS',
    [CriticalityLevel.NonBreaking]: 'SAFE',
  };
  return (await graphqlDiff(before, after)).map((c) => ({
    spec: 'schema/',
    severity: level[c.criticality.level],
    where: c.path ?? '',
    message: c.message,
  }));
}

/** The specs at `ref` (openapi/, schema/, codegen.ts), extracted into a temporary folder. */
function checkout(root: string, ref: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spec-diff-'));
  const archive = execFileSync('git', ['archive', '--format=tar', ref, 'openapi', 'schema', 'codegen.ts'], {
    cwd: root,
    maxBuffer: 256 * 1024 * 1024,
  });
  execFileSync('tar', ['-x', '-C', dir], { input: archive });
  return dir;
}

/** Every change of the specs in `root` (the working tree) since `base`. */
export async function specDiff(root: string, base: string): Promise<SpecChange[]> {
  const before = checkout(root, base);
  try {
    return [...(await graphqlChanges(before, root)), ...(await openApiChanges(before, root))];
  } finally {
    fs.rmSync(before, { recursive: true, force: true });
  }
}

/** The commits after `base` carry a `BREAKING CHANGE:` footer. */
export function breakingChangeMarked(root: string, base: string): boolean {
  const log = execFileSync('git', ['log', '--format=%B', `${base}..HEAD`], { cwd: root, encoding: 'utf8' });
  return /^BREAKING[ -]CHANGE:/m.test(log);
}

const isMain = process.argv[1]?.endsWith('scripts/spec-diff.ts');
if (isMain) {
  const { values, positionals } = parseArgs({ options: { 'accept-breaking': { type: 'boolean' } }, allowPositionals: true });
  const root = process.cwd();
  const base = positionals[0] ?? 'HEAD';
  try {
    execFileSync('git', ['rev-parse', '--verify', '--quiet', `${base}^{commit}`], { cwd: root, stdio: 'ignore' });
  } catch {
    console.log(`spec:diff: no commit ${base} to compare with (a shallow clone or the first commit); nothing compared`);
    process.exit(0);
  }
  const changes = await specDiff(root, base);
  for (const spec of [...new Set(changes.map((c) => c.spec))]) {
    const list = changes.filter((c) => c.spec === spec);
    const count = (s: Severity) => list.filter((c) => c.severity === s).length;
    console.log(`${spec}: ${count('BREAKING')} breaking, ${count('DANGEROUS')} dangerous, ${count('SAFE')} safe`);
    for (const c of list) console.log(`  ${c.severity.padEnd(9)} ${c.where}: ${c.message}`);
  }
  const breaking = changes.filter((c) => c.severity === 'BREAKING').length;
  if (!changes.length) console.log(`spec:diff: no client-visible change since ${base}`);
  if (breaking) {
    const marked = values['accept-breaking'] || breakingChangeMarked(root, base);
    console.log(
      marked
        ? `spec:diff: ${breaking} breaking change(s) since ${base}, marked as intended`
        : `spec:diff: ${breaking} breaking change(s) since ${base}. If intended, say so in the commit message with a line\n` +
            '"BREAKING CHANGE: <what clients must do>" (or pass --accept-breaking); otherwise make the change additive.',
    );
    if (!marked) process.exit(1);
  }
}
