/**
 * Which test files run, and on which databases.
 *
 * A file whose relative imports (followed transitively) reach test/helpers/database.ts, the only
 * reader of TEST_DATABASE_URL, runs on every database chosen; any other file cannot tell the
 * databases apart and runs once (decision 74). A file may say more on a line of its own:
 *
 * - `// test-suite: once (<why>)`: what it checks does not depend on the engine (the HTTP layer,
 *   validation, rules that are the same SQL text on both), so `npm test` runs it once, on
 *   PostgreSQL (cheaper than PGlite, and the only engine with real concurrency); the long tier runs
 *   it on PGlite, so every file still meets both engines.
 * - `// test-suite: postgres-only (<why>)`: it needs a database server (two instances, worker
 *   processes) and skips on PGlite: it runs in the PostgreSQL run only.
 *
 * Two tiers: `npm test` runs every `*.test.ts` but the `*.long.test.ts` files; `npm run test:long`
 * runs those (the scenarios whose value is in their length), with a new seed every file that draws
 * random values (test/helpers/random.ts), and the `once` files on PGlite.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export const root = path.resolve(import.meta.dirname, '../..');
const databaseHelper = path.join(root, 'test/helpers/database.ts');

/** Every `*.test.ts` under `dir` (absolute), sorted. */
export function testFilesUnder(dir: string): string[] {
  if (fs.statSync(dir).isFile()) return dir.endsWith('.test.ts') ? [dir] : [];
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => testFilesUnder(path.join(dir, e.name)))
    .sort();
}

const importPattern = /(?:from|import|import\()\s*['"](\.{1,2}\/[^'"]+)['"]/g;

/** Each file's imports, read once: a selection walks the closure of every test file, most of it shared. */
const imports = new Map<string, string[]>();

/** The relative imports of `file` (static or dynamic), as absolute paths. */
function importsOf(file: string): string[] {
  let found = imports.get(file);
  if (!found) {
    found = fs.existsSync(file)
      ? [...fs.readFileSync(file, 'utf8').matchAll(importPattern)].map((m) => path.resolve(path.dirname(file), m[1] ?? ''))
      : [];
    imports.set(file, found);
  }
  return found;
}

/**
 * Whether `file`'s import closure reaches one of `targets`, not walking through `cut` (a composition
 * root such as src/server.ts, which imports every area and would make everything reach everything).
 */
function reaches(file: string, targets: Set<string>, cut: Set<string> = new Set(), seen = new Set<string>()): boolean {
  if (targets.has(file)) return true;
  if (seen.has(file) || cut.has(file)) return false;
  seen.add(file);
  return importsOf(file).some((next) => reaches(next, targets, cut, seen));
}

export function reachesDatabase(file: string): boolean {
  return reaches(file, new Set([databaseHelper]));
}

const randomHelper = path.join(root, 'test/helpers/random.ts');

/** A long-tier file (`*.long.test.ts`): runs in `npm run test:long`, not in `npm test`. */
export function isLongFile(file: string): boolean {
  return file.endsWith('.long.test.ts');
}

/**
 * Whether `file` draws random values from test/helpers/random.ts: `npm test` runs it with a fixed
 * seed, and the long tier runs it again with a new one.
 */
function drawsRandomly(file: string): boolean {
  return reaches(file, new Set([randomHelper]));
}

/**
 * Whether `file` needs a process of its own rather than sharing one with other files (batch.ts):
 * a long scenario, a file that draws random values (its seed and replay line are the process's), a
 * file with a root-level `t.before` (tap would hold it for every later file), or one that says
 * `// test-suite: own-process (<why>)` (it changes something process-wide).
 */
export function runsAlone(file: string): boolean {
  const text = fs.readFileSync(file, 'utf8');
  return isLongFile(file) || drawsRandomly(file) || /^t\.before\(/m.test(text) || /^\/\/ test-suite: own-process\b/m.test(text);
}

/** What a file's `// test-suite:` line says, if it has one. */
function marker(file: string): 'once' | 'postgres-only' | undefined {
  return /^\/\/ test-suite: (once|postgres-only)\b/m.exec(fs.readFileSync(file, 'utf8'))?.[1] as 'once' | 'postgres-only' | undefined;
}

export function runsOnce(file: string): boolean {
  return marker(file) === 'once';
}

function postgresOnly(file: string): boolean {
  return marker(file) === 'postgres-only';
}

/**
 * A file's runs in a tier, given the databases chosen (`runs`, PGlite before PostgreSQL): none when
 * the file is not in the tier.
 */
export function runsOf(tier: 'normal' | 'long', file: string, runs: string[]): string[] {
  const last = runs.slice(-1);
  const database = reachesDatabase(file);
  const once = runsOnce(file);
  const every = !database ? last : postgresOnly(file) && runs.length > 1 ? last : runs;
  if (tier === 'normal') return isLongFile(file) ? [] : once ? last : every;
  if (isLongFile(file) || drawsRandomly(file)) return every;
  // npm test ran it on PostgreSQL: the long tier gives it the other engine.
  return database && once && runs.length > 1 ? runs.slice(0, 1) : [];
}

/** The files of a tier (any database). */
export function filesOfTier(tier: 'normal' | 'long', files: string[]): string[] {
  return files.filter((f) => runsOf(tier, f, ['PGlite', 'PostgreSQL']).length > 0);
}

/** Where each area's tests live, when not (only) in test/<area>. */
const AREA_TESTS: Record<string, string[]> = {
  auth: ['foundation', 'identity', 'sso'],
  content: ['content', 'graphql', 'pagination'],
  http: ['foundation'],
  identity: ['identity', 'sso'],
  users: ['content', 'graphql', 'identity', 'sso'],
};

/** Files changed since `base`: committed since it, staged, unstaged and untracked (absolute paths). */
function changedSince(base: string): string[] {
  const git = (...args: string[]) => execFileSync('git', args, { cwd: root, encoding: 'utf8' }).split('\n').filter(Boolean);
  const mergeBase = git('merge-base', base, 'HEAD')[0] ?? base;
  const files = new Set([...git('diff', '--name-only', mergeBase), ...git('ls-files', '--others', '--exclude-standard')]);
  return [...files].map((f) => path.join(root, f));
}

/**
 * The test files a change since `base` touches: a changed test file; a test file whose imports
 * reach a changed file (test helpers, src/ modules imported directly, scripts/), not counting the
 * path through src/server.ts, which reaches every area; and the tests of a changed src/<area>/
 * (AREA_TESTS). A changed migration (src/db/) or top-level src/ module selects every file that
 * reaches a database; a changed spec (schema/, openapi/) selects what generated/ then changes.
 */
export function testFilesTouchedSince(base: string, all: string[]): string[] {
  return testFilesTouchedBy(changedSince(base), all);
}

/** The rule of testFilesTouchedSince, for a given list of changed files (absolute paths). */
export function testFilesTouchedBy(changed: string[], all: string[]): string[] {
  const changedSet = new Set(changed);
  const cut = new Set([path.join(root, 'src/server.ts'), path.join(root, 'src/app.ts')]);
  const areaFolders = new Set<string>();
  let everyDatabaseFile = false;
  for (const file of changed) {
    const relative = path.relative(root, file).split(path.sep);
    if (relative[0] !== 'src') continue;
    if (relative.length === 2 || relative[1] === 'db') everyDatabaseFile = true;
    else for (const folder of AREA_TESTS[relative[1]!] ?? [relative[1]!]) areaFolders.add(path.join(root, 'test', folder) + path.sep);
  }
  return all.filter(
    (file) =>
      changedSet.has(file) ||
      [...areaFolders].some((folder) => file.startsWith(folder)) ||
      (everyDatabaseFile && reachesDatabase(file)) ||
      reaches(file, changedSet, cut),
  );
}
