/**
 * `npm run test:suite`: the node-tap suite on in-memory PGlite and on a real PostgreSQL server, both
 * runs drawing on one pool of test processes.
 *
 *   npm run test:suite                           every file; both databases; contract coverage enforced
 *   npm run test:suite -- test/catalog [file…]   those folders and files, on PGlite
 *   npm run test:suite -- --changed [--since main]  the files a change touches (selection.ts), on PGlite
 *   options: --db pglite|postgres|both, --jobs N (files at a time), --grep <subtest name pattern>
 *
 * The source tree is compiled once (scripts/build.mjs, about a second) and every test file runs as
 * plain JavaScript in its own process (run-file.ts), without tsx or tap's runner. Files that reach no
 * database, or say they cannot tell the two apart, run once (selection.ts), in the PostgreSQL run
 * when it runs. Each file's TAP is printed when it ends; then the timing report (each run's wall
 * time and its ten slowest files), the contract coverage (per OpenAPI document, the operations and
 * documented statuses whose responses the tests validated: test/helpers/contract-coverage.ts; the
 * whole suite fails unless every operation was exercised) and one closing line "suite: N passed, N
 * failed".
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { buildDist, compileTree } from './build.mjs';
import { reportCoverage } from '../test/helpers/contract-coverage.ts';
import { startPostgres } from './test-suite/postgres.ts';
import { countsOf, fileBlock, timingReport, type FileRun } from './test-suite/report.ts';
import { runFile } from './test-suite/run-file.ts';
import { reachesDatabase, root, runsOnce, testFilesTouchedSince, testFilesUnder } from './test-suite/selection.ts';
import { ensureTapBuilt } from './test-suite/tap-build.ts';
import { loadTimings, saveTimings } from './test-suite/timings.ts';

const PGLITE = 'PGlite (in-memory)';
const POSTGRES = 'PostgreSQL';
/**
 * A file's time-out guards against a hang, not a slow machine: on a loaded 2-core machine running
 * four files at once the largest take minutes (on 2026-11-27: the authorization matrix 179 s, the
 * 10,000 revocation races 302 s), and must not fail for it.
 */
const TIMEOUT_S = 600;

const { values: options, positionals } = parseArgs({
  options: {
    db: { type: 'string' },
    jobs: { type: 'string' },
    grep: { type: 'string' },
    changed: { type: 'boolean', default: false },
    since: { type: 'string', default: 'HEAD' },
  },
  allowPositionals: true,
});
const whole = positionals.length === 0 && !options.changed && !options.grep;
const db = options.db ?? (whole ? 'both' : 'pglite');
if (!['pglite', 'postgres', 'both'].includes(db)) throw new Error(`--db is pglite, postgres or both, not ${db}`);
// Test processes spend much of their time waiting on sockets, timers and the database server, so
// two per core keep both cores busy.
const jobs = Number(options.jobs ?? Math.max(2, os.availableParallelism()) * 2);

let files = testFilesUnder(path.join(root, 'test'));
if (positionals.length) files = [...new Set(positionals.flatMap((p) => testFilesUnder(path.resolve(p))))];
if (options.changed) files = testFilesTouchedSince(options.since, files);

const runs = db === 'both' ? [PGLITE, POSTGRES] : [db === 'pglite' ? PGLITE : POSTGRES];
const onceRun = runs.at(-1)!;
const jobsToRun: { file: string; run: string }[] = [];
for (const file of files) {
  const relative = path.relative(root, file);
  const everyRun = reachesDatabase(file) && !runsOnce(file);
  for (const run of everyRun ? runs : [onceRun]) jobsToRun.push({ file: relative, run });
}
if (!jobsToRun.length) {
  console.log('no test file selected');
  process.exit(0);
}
console.log(
  `${jobsToRun.length} test file runs on ${runs.join(' and ')}, ${jobs} at a time` +
    (runs.length > 1 ? `; once, in the ${onceRun} run: ${files.filter((f) => !(reachesDatabase(f) && !runsOnce(f))).length} files` : ''),
);

const started = performance.now();
// The compiled tree is this run's own, so two runs in one checkout never share a half-written one.
const buildDir = path.join(root, '.test-build', `run-${process.pid}`);
for (const stale of fs.existsSync(path.dirname(buildDir)) ? fs.readdirSync(path.dirname(buildDir)) : []) {
  const pid = Number(/^run-(\d+)$/.exec(stale)?.[1]);
  if (pid && !isAlive(pid)) fs.rmSync(path.join(path.dirname(buildDir), stale), { recursive: true, force: true });
}
const modules = await compileTree({
  sources: ['src', 'generated', 'scripts', 'test', 'docs/examples', 'codegen.ts'],
  out: buildDir,
  pinSourcePaths: true,
});
console.log(`compiled ${modules} modules in ${((performance.now() - started) / 1000).toFixed(1)} s`);
// dist/ too, before any file starts: the tests that run `npm start` or `npm run worker` side by side
// then find it built and leave it alone (a rebuild under a starting process fails its imports).
console.log(await buildDist());
ensureTapBuilt();

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const coverageDir = fs.mkdtempSync(path.join(os.tmpdir(), 'contract-coverage-'));
const baseEnv: NodeJS.ProcessEnv = {
  ...process.env,
  CONTRACT_COVERAGE_DIR: coverageDir,
  ...(options.grep ? { TAP_GREP: options.grep } : {}),
};
const envOf: Record<string, NodeJS.ProcessEnv> = { [PGLITE]: { ...baseEnv, TEST_DATABASE_URL: '' } };
const postgres = runs.includes(POSTGRES) ? startPostgres() : undefined;
void postgres?.then(({ url }) => (envOf[POSTGRES] = { ...baseEnv, TEST_DATABASE_URL: url }));

// Longest first (as the last run on this machine timed them; files never timed before go first), so
// that no long file starts last and holds the suite up alone.
const timings = loadTimings();
const expected = (job: { file: string; run: string }) => timings[`${job.run} ${job.file}`] ?? Infinity;
const queue = [...jobsToRun].sort((a, b) => expected(b) - expected(a));
const done: FileRun[] = [];

async function worker(): Promise<void> {
  for (;;) {
    const index = queue.findIndex((job) => envOf[job.run]);
    if (index < 0) {
      if (!queue.length) return;
      // Only PostgreSQL files are left and its server is still starting.
      await postgres;
      continue;
    }
    const [job] = queue.splice(index, 1);
    const startedAt = performance.now() - started;
    const result = await runFile({ module: moduleOf(job!.file), cwd: root, env: envOf[job!.run]!, timeoutS: TIMEOUT_S });
    const entry = { ...job!, result, startedAt, endedAt: performance.now() - started };
    done.push(entry);
    process.stdout.write(fileBlock(done.length, entry));
  }
}

const moduleOf = (file: string) => path.join(buildDir, file.replace(/\.ts$/, '.js'));

try {
  console.log('TAP version 14');
  await Promise.all(Array.from({ length: jobs }, worker));
  console.log(`1..${done.length}`);
} finally {
  fs.rmSync(buildDir, { recursive: true, force: true });
  await (await postgres)?.stop();
}
const wall = performance.now() - started;
saveTimings(Object.fromEntries(done.map((d) => [`${d.run} ${d.file}`, Math.round(d.result.ms)])));

for (const run of runs) {
  const counts = countsOf(done.filter((d) => d.run === run).map((d) => d.result));
  console.log(`${run}: ${counts.pass} passed, ${counts.fail} failed${counts.skip ? `, ${counts.skip} skipped` : ''}`);
}
console.log(timingReport(runs, done, wall, jobs));

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
if (uncovered && whole) console.log(`contract coverage: ${uncovered} document(s) below 100 % of operations`);

const failed = done.filter((d) => !d.result.ok);
if (failed.length) {
  console.log('\nfailed:');
  for (const f of failed) for (const failure of f.result.failures) console.log(`  ${f.file} (${f.run}): ${failure}`);
}
const total = countsOf(done.map((d) => d.result));
console.log(`\nsuite: ${total.pass} passed, ${total.fail} failed`);
process.exit(failed.length === 0 && (uncovered === 0 || !whole) ? 0 : 1);
