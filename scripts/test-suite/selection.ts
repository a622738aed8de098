/**
 * Which test files run, and on which databases.
 *
 * A file whose relative imports (followed transitively) reach test/helpers/database.ts, the only
 * reader of TEST_DATABASE_URL, runs on every database chosen; any other file cannot tell the
 * databases apart and runs once (decision 74), and so does a file that says so on a line starting
 * `// test-suite: once` (a browser on a static page, a command-line tool, a compiler on the SDK),
 * followed by the reason.
 *
 * Two tiers: `npm test` runs every `*.test.ts` but the `*.long.test.ts` files; `npm run test:long`
 * runs those (the scenarios whose value is in their length) and, with a new seed, every file that
 * draws random values (test/helpers/random.ts).
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

/** The relative imports of `file` (static or dynamic), as absolute paths. */
function importsOf(file: string): string[] {
  if (!fs.existsSync(file)) return [];
  return [...fs.readFileSync(file, 'utf8').matchAll(importPattern)].map((m) => path.resolve(path.dirname(file), m[1] ?? ''));
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
function isLong(file: string): boolean {
  return file.endsWith('.long.test.ts');
}

/**
 * Whether `file` draws random values from test/helpers/random.ts: `npm test` runs it with a fixed
 * seed, and the long tier runs it again with a new one.
 */
function drawsRandomly(file: string): boolean {
  return reaches(file, new Set([randomHelper]));
}

/** The files of a tier: `npm test`'s, or the long tier's (its own files and the random ones again). */
export function filesOfTier(tier: 'normal' | 'long', files: string[]): string[] {
  return tier === 'normal' ? files.filter((f) => !isLong(f)) : files.filter((f) => isLong(f) || drawsRandomly(f));
}

export function runsOnce(file: string): boolean {
  return /^\/\/ test-suite: once\b/m.test(fs.readFileSync(file, 'utf8'));
}

/** Where each area's tests live, when not (only) in test/<area>. */
const AREA_TESTS: Record<string, string[]> = {
  auth: ['foundation', 'identity', 'sso'],
  content: ['content', 'graphql', 'pagination'],
  http: ['foundation'],
  identity: ['identity', 'sso'],
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
