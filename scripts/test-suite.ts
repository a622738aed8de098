/**
 * `npm test`, `npm run test:long` and `npm run test:suite`: the node-tap suite on in-memory PGlite and
 * on a real PostgreSQL server, both runs drawing on one pool of test processes, and its ledger.
 *
 *   npm test                                     the checks, then every file of the normal tier on both
 *                                                databases; contract coverage enforced; the ledger
 *                                                against the CPU budget
 *   npm run test:long                            the long tier (selection.ts): *.long.test.ts, and the
 *                                                random files again with a new seed, on both databases
 *   npm run test:suite                           the normal tier without the checks
 *   npm run test:suite -- test/catalog [file…]   those folders and files (either tier), on PGlite
 *   npm run test:suite -- --changed [--since main]  the files a change touches (selection.ts), on PGlite
 *   options: --db pglite|postgres|both, --jobs N (files at a time), --grep <subtest name pattern>,
 *            --tier normal|long, --with-checks, --commit-ledger (also write test/ledger[-long].json)
 *   TEST_SEED=<n> replays the random files with that seed (test/helpers/random.ts)
 *
 * The selected test files are bundled once (scripts/build.mjs bundleTests, a few seconds) and every
 * test file runs as plain JavaScript in its own process (run-file.ts), without tsx or tap's runner. Files that reach no
 * database, or say they cannot tell the two apart, run once (selection.ts), in the PostgreSQL run
 * when it runs. Each file's TAP is printed when it ends; then the timing report, the ledger
 * (ledger.ts), the contract coverage (per OpenAPI document, the operations and documented statuses
 * whose responses the tests validated: test/helpers/contract-coverage.ts; a whole normal-tier run
 * fails unless every operation was exercised) and one closing line "suite: N passed, N failed".
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { buildDist, bundleTests } from './build.mjs';
import { runChecks } from './checks.ts';
import { reportCoverage } from '../test/helpers/contract-coverage.ts';
import { ownCpuSeconds } from './test-suite/cpu.ts';
import { ledgerReport, previousLedger, saveLedger, type Ledger } from './test-suite/ledger.ts';
import { startPostgres } from './test-suite/postgres.ts';
import { countsOf, coverageReport, failedReport, fileBlock, timingReport, type FileRun } from './test-suite/report.ts';
import { runBatch } from './test-suite/run-batch.ts';
import { runFile, type FileResult } from './test-suite/run-file.ts';
import { isLongFile, root, runsAlone, runsOf, testFilesTouchedSince, testFilesUnder } from './test-suite/selection.ts';
import { ensureTapBuilt } from './test-suite/tap-build.ts';

const PGLITE = 'PGlite (in-memory)';
const POSTGRES = 'PostgreSQL';
/**
 * A file's time-out guards against a hang, not a slow machine: on a loaded 2-core machine running
 * four files at once the largest take minutes, and must not fail for it.
 */
const TIMEOUT_S = 600;
/** The module that runs several files in one process (test-suite/batch.ts). */
const BATCH_ENTRY = 'scripts/test-suite/batch.ts';
/**
 * Files that can share a process are run in batches of about this much wall time (as the last
 * ledger timed them) and at most MAX_BATCH files: long enough that loading the process is paid once
 * for several files, short enough that the four lanes still end together.
 */
const BATCH_TARGET_MS = 60_000;
const MAX_BATCH = 8;

const { values: options, positionals } = parseArgs({
  options: {
    db: { type: 'string' },
    jobs: { type: 'string' },
    grep: { type: 'string' },
    changed: { type: 'boolean', default: false },
    since: { type: 'string', default: 'HEAD' },
    tier: { type: 'string', default: 'normal' },
    'with-checks': { type: 'boolean', default: false },
    'commit-ledger': { type: 'boolean', default: false },
  },
  allowPositionals: true,
});
const tier = options.tier;
if (tier !== 'normal' && tier !== 'long') throw new Error(`--tier is normal or long, not ${tier}`);
const whole = positionals.length === 0 && !options.changed && !options.grep;
const db = options.db ?? (whole ? 'both' : 'pglite');
if (!['pglite', 'postgres', 'both'].includes(db)) throw new Error(`--db is pglite, postgres or both, not ${db}`);
// Test processes spend much of their time waiting on sockets, timers and the database server, so
// two per core keep both cores busy.
const jobs = Number(options.jobs ?? Math.max(2, os.availableParallelism()) * 2);

const started = performance.now();
const ledger: Ledger = {};
if (options['with-checks']) {
  const ok = await runChecks(ledger);
  if (!ok) {
    console.log(ledgerReport({ entries: ledger, shared: [], wallMs: performance.now() - started, budget: false }));
    console.log('\nchecks failed: the suite did not run');
    process.exit(1);
  }
}

let files = testFilesUnder(path.join(root, 'test'));
if (positionals.length) files = [...new Set(positionals.flatMap((p) => testFilesUnder(path.resolve(p))))];
if (options.changed) files = testFilesTouchedSince(options.since, files);

const runs = db === 'both' ? [PGLITE, POSTGRES] : [db === 'pglite' ? PGLITE : POSTGRES];
const jobsToRun: { file: string; run: string }[] = [];
for (const file of files) {
  // Files named on the command line run whatever their tier.
  const fileRuns = runsOf(tier, file, runs);
  const named = positionals.length > 0 && !fileRuns.length ? runsOf(isLongFile(file) ? 'long' : 'normal', file, runs) : fileRuns;
  for (const run of named) jobsToRun.push({ file: path.relative(root, file), run });
}
if (!jobsToRun.length) {
  console.log('no test file selected');
  process.exit(0);
}
const runsOfEach = new Map<string, number>();
for (const job of jobsToRun) runsOfEach.set(job.file, (runsOfEach.get(job.file) ?? 0) + 1);
console.log(
  `${tier === 'long' ? 'long tier: ' : ''}${jobsToRun.length} runs of ${runsOfEach.size} test files on ${runs.join(' and ')}, ${jobs} at a time` +
    (runs.length > 1 ? `; ${[...runsOfEach.values()].filter((n) => n === 1).length} of the files on one database only` : ''),
);

// The compiled tree is this run's own, so two runs in one checkout never share a half-written one.
const buildDir = path.join(root, '.test-build', `run-${process.pid}`);
for (const stale of fs.existsSync(path.dirname(buildDir)) ? fs.readdirSync(path.dirname(buildDir)) : []) {
  const pid = Number(/^run-(\d+)$/.exec(stale)?.[1]);
  if (pid && !isAlive(pid)) fs.rmSync(path.join(path.dirname(buildDir), stale), { recursive: true, force: true });
}
const compileStarted = performance.now();
await bundleTests({ entries: [...new Set(jobsToRun.map((job) => job.file)), BATCH_ENTRY], out: buildDir });
console.log(`bundled ${runsOfEach.size} test files in ${((performance.now() - compileStarted) / 1000).toFixed(1)} s`);
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
  ...(tier === 'long' ? { TEST_TIER: 'long' } : {}),
  ...(options.grep ? { TAP_GREP: options.grep } : {}),
};
const envOf: Record<string, NodeJS.ProcessEnv> = { [PGLITE]: { ...baseEnv, TEST_DATABASE_URL: '' } };
const postgres = runs.includes(POSTGRES) ? startPostgres() : undefined;
void postgres?.then(({ url }) => (envOf[POSTGRES] = { ...baseEnv, TEST_DATABASE_URL: url }));

// Longest first (as the ledger compared with timed them; files never timed before go first), so
// that no long file starts last and holds the suite up alone.
const previous = previousLedger(tier);
const expected = (job: { file: string; run: string }) => previous?.entries[`${job.run} ${job.file}`]?.wallMs ?? Infinity;
type Job = (typeof jobsToRun)[number];
const queue: Job[][] = batches(jobsToRun).sort((a, b) => expectedMs(b) - expectedMs(a));
const done: FileRun[] = [];

function expectedMs(batch: Job[]): number {
  return batch.reduce((n, job) => n + expected(job), 0);
}

/**
 * The jobs grouped into what each process runs: a file that runs alone (selection.ts runsAlone) on
 * its own, the others in batches of one database's files, filled longest first. A run with a
 * subtest filter (--grep) or of a single file gives every file its own process.
 */
function batches(jobs: Job[]): Job[][] {
  if (options.grep || jobs.length < 2) return jobs.map((job) => [job]);
  const alone = jobs.filter((job) => runsAlone(path.join(root, job.file)));
  const grouped: Job[][] = alone.map((job) => [job]);
  for (const run of runs) {
    const shared = jobs
      .filter((job) => job.run === run && !alone.includes(job))
      // Never timed: counted as a typical file.
      .map((job) => ({ job, ms: Number.isFinite(expected(job)) ? expected(job) : 15_000 }))
      .sort((a, b) => b.ms - a.ms);
    let batch: Job[] = [];
    let ms = 0;
    for (const { job, ms: jobMs } of shared) {
      if (batch.length && (ms + jobMs > BATCH_TARGET_MS || batch.length === MAX_BATCH)) {
        grouped.push(batch);
        batch = [];
        ms = 0;
      }
      batch.push(job);
      ms += jobMs;
    }
    if (batch.length) grouped.push(batch);
  }
  return grouped;
}

async function runJobs(batch: Job[]): Promise<FileResult[]> {
  const env = { ...envOf[batch[0]!.run]! };
  if (batch.length === 1)
    return [
      await runFile({ module: moduleOf(batch[0]!.file), cwd: root, env: { ...env, TEST_FILE: batch[0]!.file }, timeoutS: TIMEOUT_S }),
    ];
  const files = batch.map((job) => ({ file: job.file, module: moduleOf(job.file) }));
  return runBatch({ batchModule: moduleOf(BATCH_ENTRY), files, cwd: root, env, timeoutS: TIMEOUT_S });
}

async function worker(): Promise<void> {
  for (;;) {
    const index = queue.findIndex((batch) => envOf[batch[0]!.run]);
    if (index < 0) {
      if (!queue.length) return;
      // Only PostgreSQL files are left and its server is still starting.
      await postgres;
      continue;
    }
    const [batch] = queue.splice(index, 1);
    const startedAt = performance.now() - started;
    const results = await runJobs(batch!);
    let fileStart = startedAt;
    batch!.forEach((job, i) => {
      const result = results[i]!;
      const entry = { ...job, result, startedAt: fileStart, endedAt: fileStart + result.ms };
      fileStart = entry.endedAt;
      done.push(entry);
      process.stdout.write(fileBlock(done.length, entry));
    });
  }
}

const moduleOf = (file: string) => path.join(buildDir, file.replace(/\.ts$/, '.js'));

let postgresCpu = 0;
try {
  console.log('TAP version 14');
  await Promise.all(Array.from({ length: jobs }, worker));
  console.log(`1..${done.length}`);
} finally {
  fs.rmSync(buildDir, { recursive: true, force: true });
  const server = await postgres;
  postgresCpu = server?.cpuSeconds() ?? 0;
  await server?.stop();
}
const wall = performance.now() - started;

for (const run of runs) {
  const counts = countsOf(done.filter((d) => d.run === run).map((d) => d.result));
  console.log(`${run}: ${counts.pass} passed, ${counts.fail} failed${counts.skip ? `, ${counts.skip} skipped` : ''}`);
}
console.log(timingReport(runs, done, wall, jobs));

for (const d of done)
  ledger[`${d.run} ${d.file}`] = { wallMs: Math.round(d.result.ms), cpuSeconds: Math.round(d.result.cpuSeconds * 10) / 10 };
saveLedger(tier, ledger, options['commit-ledger']);

const coverage = reportCoverage(coverageDir, path.join(root, 'generated/openapi'));
fs.rmSync(coverageDir, { recursive: true, force: true });
console.log(coverageReport(coverage, whole));
const uncovered = coverage.filter((c) => c.missingOperations.length).length;
const coverageEnforced = whole && tier === 'normal';
if (uncovered && coverageEnforced) console.log(`contract coverage: ${uncovered} document(s) below 100 % of operations`);

console.log(
  ledgerReport({
    entries: ledger,
    shared: [
      ...(runs.includes(POSTGRES) ? [{ name: 'PostgreSQL server', cpuSeconds: postgresCpu }] : []),
      {
        name: 'runner (build, TAP parsing)',
        // The runner's reaped children hold the files, the checks and the stopped server too.
        cpuSeconds: ownCpuSeconds() - done.reduce((n, d) => n + d.result.cpuSeconds, 0) - checksCpu() - postgresCpu,
      },
    ],
    wallMs: wall,
    budget: whole && tier === 'normal' && options['with-checks'],
    previous,
  }),
);

/** The checks' CPU, which the runner's reaped children also hold. */
function checksCpu(): number {
  return Object.entries(ledger)
    .filter(([key]) => key.startsWith('check '))
    .reduce((n, [, e]) => n + e.cpuSeconds, 0);
}

const failed = done.filter((d) => !d.result.ok);
if (failed.length) console.log(`\n${failedReport(failed)}`);
const total = countsOf(done.map((d) => d.result));
console.log(`\nsuite: ${total.pass} passed, ${total.fail} failed`);
process.exit(failed.length === 0 && (uncovered === 0 || !coverageEnforced) ? 0 : 1);
