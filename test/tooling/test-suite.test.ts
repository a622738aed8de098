/**
 * The suite's own runner (scripts/test-suite/): it counts as tap's runner counts, reports a failure
 * with the names of its subtests, fails a file that crashes or times out, and selects files by the
 * databases they reach and by what a change touches.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { build } from 'esbuild';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { ledgerReport } from '../../scripts/test-suite/ledger.ts';
import { coverageReport, failedReport } from '../../scripts/test-suite/report.ts';
import { runBatch } from '../../scripts/test-suite/run-batch.ts';
import { countTap, runFile } from '../../scripts/test-suite/run-file.ts';
import {
  filesOfTier,
  reachesDatabase,
  root,
  runsOf,
  runsOnce,
  testFilesTouchedBy,
  testFilesUnder,
} from '../../scripts/test-suite/selection.ts';

const all = testFilesUnder(path.join(root, 'test'));
const at = (relative: string) => path.join(root, relative);

/** A test file in a scratch folder, importing the installed tap by its resolved URL. */
function fixture(t: Test, body: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'suite-fixture-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'fixture.test.mjs');
  fs.writeFileSync(file, `import t from ${JSON.stringify(import.meta.resolve('tap'))};\n${body}`);
  return file;
}

t.test('counts every assertion at every depth, not the lines that close a subtest', async (t) => {
  const tap = [
    'TAP version 14',
    '# Subtest: outer',
    '    # Subtest: inner',
    '        ok 1 - a',
    '        not ok 2 - b # TODO later',
    '        1..2',
    '    ok 1 - inner',
    '    ok 2 - c # SKIP not here',
    '    not ok 3 - d',
    '    1..3',
    'not ok 1 - outer',
    'ok 2 - e',
    '1..2',
    '',
  ].join('\n');
  t.match(countTap(tap), { pass: 2, fail: 1, skip: 1, todo: 1, failures: ['outer > d'], parsedOk: false });
});

t.test('a failed assertion fails the file and is named with its subtests', async (t) => {
  const file = fixture(
    t,
    "t.test('outer', async (t) => { t.test('inner', async (t) => { t.pass('fine'); t.equal(1, 2, 'one is two'); }); });\n",
  );
  const result = await runFile({ module: file, cwd: root, env: process.env, timeoutS: 30 });
  t.match(result, { ok: false, pass: 1, fail: 1, failures: ['outer > inner > one is two'], timedOut: false });
});

t.test('a file that crashes, or outlives its time-out, fails with one failure', async (t) => {
  const crash = await runFile({
    module: fixture(t, "t.pass('before');\nthrow new Error('boom');\n"),
    cwd: root,
    env: process.env,
    timeoutS: 30,
  });
  t.match(crash, { ok: false, fail: 1 });
  t.match(crash.stdout, /boom/, 'the error is in the output');
  const hang = await runFile({
    module: fixture(t, "t.test('outlives its time-out', () => new Promise((resolve) => setTimeout(resolve, 3000)));\n"),
    cwd: root,
    env: process.env,
    timeoutS: 1,
  });
  t.match(hang, { ok: false, fail: 1, failures: ['outlives its time-out > timeout!'] });
  const passing = await runFile({ module: fixture(t, "t.pass('one');\nt.pass('two');\n"), cwd: root, env: process.env, timeoutS: 30 });
  t.match(passing, { ok: true, pass: 2, fail: 0, failures: [] });
});

t.test("a file's CPU seconds are its whole process tree's, children included", async (t) => {
  // The file itself idles; a child it waits for spins until it has used a second of CPU (by its
  // own count, not the clock's: on a loaded machine a second of wall time is less of CPU).
  const spin = 'const u = () => { const c = process.cpuUsage(); return c.user + c.system; }; while (u() < 1e6);';
  const result = await runFile({
    module: fixture(
      t,
      `import { execFileSync } from 'node:child_process';\nexecFileSync(process.execPath, ['-e', ${JSON.stringify(spin)}]);\nt.pass('spun');\n`,
    ),
    cwd: root,
    env: process.env,
    timeoutS: 30,
  });
  t.match(result, { ok: true, pass: 1 });
  t.ok(result.cpuSeconds >= 0.9, `the child's second is counted (${result.cpuSeconds} CPU-s)`);
  t.ok(result.cpuSeconds < result.ms / 1000 + 1, 'and not more than the tree can have used');
});

t.test('files that share a process each get their own result, teardowns and failures', async (t) => {
  // batch.ts as the suite compiles it, importing the same tap as the fixtures.
  const out = fs.mkdtempSync(path.join(root, '.test-build', 'batch-fixture-'));
  t.teardown(() => fs.rmSync(out, { recursive: true, force: true }));
  const batchModule = path.join(out, 'batch.mjs');
  await build({
    entryPoints: [at('scripts/test-suite/batch.ts')],
    bundle: true,
    format: 'esm',
    platform: 'node',
    external: ['tap'],
    outfile: batchModule,
    logLevel: 'error',
  });
  const order = path.join(out, 'order.txt');
  const note = (what: string) => `(await import('node:fs')).appendFileSync(${JSON.stringify(order)}, ${JSON.stringify(`${what}\n`)});`;
  const bodies: Record<string, string> = {
    failing: `t.test('outer', async (t) => { t.pass('fine'); t.equal(1, 2, 'one is two'); });\n`,
    torn: `t.teardown(async () => { ${note('torn down')} });\nt.test('two', async (t) => { t.pass('a'); t.pass('b'); });\n`,
    next: `${note('next loaded')}\nt.test('after', async (t) => { t.pass('c'); });\n`,
    broken: `t.test('before the throw', async (t) => { t.pass('d'); });\nthrow new Error('broken at load');\n`,
    exiting: `t.test('exits', async (t) => { t.pass('e'); process.exit(3); });\n`,
    unreached: `t.test('never', async (t) => { t.pass('f'); });\n`,
  };
  const files = Object.entries(bodies).map(([file, body]) => ({ file, module: fixture(t, body) }));
  // Without a subtest filter of this run (--grep), which would hide the fixtures' tests.
  const { TAP_GREP: _, ...env } = process.env;
  const results = await runBatch({ batchModule, files, cwd: root, env, timeoutS: 30 });
  const [failing, torn, next, broken, exiting, unreached] = results;
  t.match(failing, { ok: false, pass: 1, fail: 1, failures: ['outer > one is two'] }, 'a failure belongs to its file');
  t.match(torn, { ok: true, pass: 2, fail: 0 }, 'a file after a failed one runs and passes');
  t.match(next, { ok: true, pass: 1 });
  t.equal(fs.readFileSync(order, 'utf8'), 'torn down\nnext loaded\n', "a file's root-level teardowns run before the next file loads");
  t.match(broken, { ok: false, pass: 1, fail: 1 }, 'a file that throws outside its tests fails');
  t.match(broken!.failures[0], /the file failed outside its tests: Error: broken at load/);
  t.match(exiting, { ok: false, pass: 1 }, 'the file the process ended in fails with what it printed');
  t.match(
    unreached,
    { ok: false, pass: 0, failures: ['not run: the batch process ended before it (exiting)'] },
    'and a file not reached fails as not run',
  );
  t.notMatch(torn!.stdout, /test-suite: end of/, "the end marker is not in a clean file's output");
  t.match(torn!.stdout, /^ok 1 - two/m, 'each file is numbered from 1');
  for (const result of [failing, torn, next, broken]) t.ok(result!.cpuSeconds > 0 && result!.ms > 0, 'each file has its CPU and wall time');
});

t.test('contract coverage: a whole run lists every document, a run of some files only the documents they called', async (t) => {
  const of = (document: string, exercised: number) => ({
    document,
    operations: 2,
    operationsExercised: exercised,
    statuses: 4,
    statusesExercised: exercised,
    missingOperations: exercised < 2 ? ['other'] : [],
  });
  const coverage = [of('rest-v1', 2), of('scim', 0), of('webhooks', 1)];
  const whole = coverageReport(coverage, true);
  t.match(whole, /scim +operations 0\/2 \(0 %\)/, 'a whole run shows what it left out');
  t.match(whole, /rest-v1 +operations 2\/2 \(100 %\), documented statuses 2\/4 \(50 %\)/);
  const some = coverageReport(coverage, false);
  t.notMatch(some, /scim/, 'no 0 % row for a document the files did not call');
  t.match(some, /webhooks +operations 1\/2 \(50 %\).*not exercised: other/);
  t.match(some, /1 document\(s\) these files do not call left out/);
});

t.test('the ledger: totals against the budget, the heaviest files, what grew, and a loud line over budget', async (t) => {
  const entries = {
    'check typecheck': { wallMs: 30_000, cpuSeconds: 40 },
    'PostgreSQL test/a.test.ts': { wallMs: 60_000, cpuSeconds: 700 },
    'PGlite (in-memory) test/b.test.ts': { wallMs: 10_000, cpuSeconds: 12 },
  };
  const previous = { source: 'test/ledger.json', entries: { 'PostgreSQL test/a.test.ts': { wallMs: 50_000, cpuSeconds: 500 } } };
  const over = ledgerReport({ entries, shared: [{ name: 'PostgreSQL server', cpuSeconds: 300 }], wallMs: 540_000, budget: true, previous });
  t.match(over, /ledger: 1052\.0 CPU-s in 9m00s wall \(budget 1000 CPU-s: 105 %\)/);
  t.match(over, /checks 40\.0, test files 712\.0, PostgreSQL server 300\.0 CPU-s/);
  t.match(over, /700\.0 +60\.0 s +PostgreSQL test\/a\.test\.ts +\+200\.0 \(\+40 %\)/, 'the heaviest first, with its change');
  t.match(over, /12\.0 +10\.0 s +PGlite \(in-memory\) test\/b\.test\.ts +new/);
  t.match(over, /grown since test\/ledger\.json .*\n +PostgreSQL test\/a\.test\.ts: 500\.0 → 700\.0 CPU-s/);
  t.match(over.trim().split('\n').at(-1), /^!!! OVER BUDGET: npm test used 1052\.0 CPU-s, 52\.0 over its 1000/, 'the last line');
  t.match(over.trim().split('\n').at(-1), /\(docs\/testing\.md, "The ledger"\)/, 'the last line points at the ledger in docs/testing.md');
  const within = ledgerReport({ entries, shared: [], wallMs: 540_000, budget: true, previous });
  t.notMatch(within, /OVER BUDGET/, '752 CPU-s is within the budget');
  t.notMatch(
    ledgerReport({ entries, shared: [{ name: 'x', cpuSeconds: 600 }], wallMs: 1, budget: false }),
    /OVER BUDGET|budget/,
    'no budget for a partial run',
  );
});

t.test(
  'two tiers: npm test runs no long file; the long tier runs the long files, the random ones again, the once files on PGlite',
  async (t) => {
    const relative = (files: string[]) => files.map((f) => path.relative(root, f));
    const normal = relative(filesOfTier('normal', all));
    const long = relative(filesOfTier('long', all));
    t.notOk(
      normal.some((f) => f.endsWith('.long.test.ts')),
      'npm test runs no *.long.test.ts',
    );
    t.ok(long.includes('test/foundation/faults-kill-embedded.long.test.ts'), 'the fault scenarios are long');
    t.ok(
      long.includes('test/graphql/planner.property.test.ts') && normal.includes('test/graphql/planner.property.test.ts'),
      'a property test is in both',
    );
    t.notOk(
      long.includes('test/webhooks/rollback.test.ts'),
      'a file npm test runs on both databases, drawing nothing at random, is not run again',
    );
    const both = ['PGlite', 'PostgreSQL'];
    t.same(runsOf('normal', at('test/catalog/products.test.ts'), both), ['PostgreSQL'], 'a once file: npm test runs it on PostgreSQL…');
    t.same(runsOf('long', at('test/catalog/products.test.ts'), both), ['PGlite'], '…and the long tier on PGlite');
    t.same(runsOf('normal', at('test/webhooks/rollback.test.ts'), both), both, 'a file that can tell the engines apart: both');
    t.same(runsOf('normal', at('test/sso/two-instances.test.ts'), both), ['PostgreSQL'], 'postgres-only: its run only');
    t.same(runsOf('long', at('test/sso/two-instances.test.ts'), both), [], 'and not again');
    t.same(runsOf('normal', at('test/catalog/sort-fields.test.ts'), both), ['PostgreSQL'], 'a file that reaches no database: once');
    t.same(runsOf('long', at('test/graphql/planner.property.test.ts'), both), both, 'a random file: both again, with a new seed');
    t.same(runsOf('normal', at('test/identity/revocation-race.long.test.ts'), both), [], 'a long file is not in npm test');
    t.same(runsOf('normal', at('test/catalog/products.test.ts'), ['PGlite']), ['PGlite'], 'a run on one database runs everything there');
    t.same([...new Set([...normal, ...long])].sort(), relative(all), 'every file is in a tier');
  },
);

t.test('a property that fails prints its seed and the command that replays it; the replay finds the same counterexample', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'seed-fixture-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'property.mts');
  fs.writeFileSync(
    file,
    [
      `import fc from ${JSON.stringify(import.meta.resolve('fast-check'))};`,
      `import { assertProperty } from ${JSON.stringify(path.join(root, 'test/helpers/random.ts'))};`,
      '// Fails for one number in a thousand: found or not, and which one, depends on the seed.',
      'await assertProperty(fc.property(fc.integer({ min: 0, max: 1_000_000 }), (n) => n % 1000 !== 7), 20_000).catch((error: Error) => {',
      '  console.log(error.message);',
      '  process.exitCode = 1;',
      '});',
      '',
    ].join('\n'),
  );
  const run = (env: Record<string, string>) =>
    promisify(execFile)(process.execPath, ['--import', 'tsx', file], {
      cwd: root,
      env: { ...process.env, TEST_FILE: 'test/x.test.ts', TEST_DATABASE_URL: '', ...env },
    }).then(
      (r) => ({ code: 0, out: r.stdout }),
      (e: { code: number; stdout: string }) => ({ code: e.code, out: e.stdout }),
    );
  const first = await run({ TEST_TIER: 'long', TEST_SEED: '' });
  t.equal(first.code, 1, 'the property failed');
  const seed = /random seed (\d+); replay: TEST_SEED=\1 npm run test:suite -- --tier long test\/x\.test\.ts\n/.exec(first.out)?.[1];
  t.ok(seed, `the failure names the seed and the replay command:\n${first.out}`);
  t.match(first.out, /^# random seed \d+ \(new this run\); replay: TEST_SEED=/m, 'the long tier draws a new seed and says so at the start');
  // How many runs passed before the failure, and the path to it, are the seed's own.
  const found = (out: string) => /Property failed after (\d+) tests\n\{ seed: (-?\d+), path: "([^"]*)"/.exec(out)?.slice(1).join(' ');
  const replay = await run({ TEST_TIER: 'long', TEST_SEED: seed! });
  t.equal(replay.code, 1, 'the replay (the printed command: this seed, the long tier) fails too');
  t.ok(found(first.out), 'the failure and its path are printed');
  t.equal(found(replay.out), found(first.out), 'after the same number of runs, at the same path');
  t.equal(/Counterexample: (.*)/.exec(replay.out)?.[1], /Counterexample: (.*)/.exec(first.out)?.[1], 'and the same counterexample');
  // The suite's closing list repeats it under the file's failures.
  const result = { pass: 0, fail: 1, skip: 0, todo: 0, ok: false, ms: 1, cpuSeconds: 0, stdout: first.out, stderr: '', timedOut: false };
  const closing = failedReport([
    { file: 'test/x.test.ts', run: 'PostgreSQL', startedAt: 0, endedAt: 1, result: { ...result, failures: ['p > q'] } },
  ]);
  t.match(
    closing,
    new RegExp(
      `^failed:\n  test/x\\.test\\.ts \\(PostgreSQL\\): p > q\n    random seed ${seed} \\(new this run\\); replay: TEST_SEED=${seed} `,
    ),
  );
  const fixed = await run({ TEST_TIER: '', TEST_SEED: '' });
  t.match(fixed.out, /^# random seed 20261128; replay:/m, 'npm test uses the fixed seed');
});

t.test('a file runs on both databases when its imports reach the database helper, unless it says once', async (t) => {
  t.ok(reachesDatabase(at('test/catalog/products.test.ts')), 'through the server helper');
  t.notOk(reachesDatabase(at('test/catalog/sort-fields.test.ts')), 'a file that starts no server');
  t.ok(runsOnce(at('test/sdk/consumer.test.ts')), 'marked once');
  t.notOk(runsOnce(at('test/webhooks/rollback.test.ts')));
});

t.test('--changed selects what a change touches', async (t) => {
  const relative = (files: string[]) => files.map((f) => path.relative(root, f));
  const catalog = relative(testFilesTouchedBy([at('src/catalog/products.service.ts')], all));
  t.ok(catalog.includes('test/catalog/products.test.ts'), 'the area of a changed src/ module');
  t.notOk(catalog.includes('test/webhooks/delivery.test.ts'), 'not every file that starts a server');
  const identity = relative(testFilesTouchedBy([at('src/identity/sign-in/sessions.service.ts')], all));
  t.ok(identity.includes('test/sso/local-sign-in.test.ts'), 'an area whose tests live in more than one folder');
  t.ok(identity.includes('test/bench/harness.test.ts'), 'a test that imports the changed module');
  const helper = relative(testFilesTouchedBy([at('test/webhooks/webhook-fixtures.ts')], all));
  t.ok(helper.includes('test/webhooks/delivery.test.ts'), 'the importers of a changed helper');
  t.notOk(helper.includes('test/catalog/products.test.ts'));
  const migration = testFilesTouchedBy([at('src/db/migrations/0011_webhooks.ts')], all);
  t.same(
    all.filter(reachesDatabase).filter((file) => !migration.includes(file)),
    [],
    'a migration: every file that reaches a database',
  );
  t.ok(migration.includes(at('test/foundation/one-owner.test.ts')), 'and the files whose data folders are copies of the migrated snapshot');
  t.notOk(migration.includes(at('test/catalog/sort-fields.test.ts')), 'not a file that reaches neither');
  t.same(testFilesTouchedBy([at('test/catalog/listing.test.ts')], all), [at('test/catalog/listing.test.ts')], 'a changed test file');
});
