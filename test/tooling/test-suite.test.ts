/**
 * The suite's own runner (scripts/test-suite/): it counts as tap's runner counts, reports a failure
 * with the names of its subtests, fails a file that crashes or times out, and selects files by the
 * databases they reach and by what a change touches.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { countTap, runFile } from '../../scripts/test-suite/run-file.ts';
import { reachesDatabase, root, runsOnce, testFilesTouchedBy, testFilesUnder } from '../../scripts/test-suite/selection.ts';

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

t.test('a file runs on both databases when its imports reach the database helper, unless it says once', async (t) => {
  t.ok(reachesDatabase(at('test/catalog/products.test.ts')), 'through the server helper');
  t.notOk(reachesDatabase(at('test/catalog/sort-fields.test.ts')), 'a file that starts no server');
  t.ok(runsOnce(at('test/sdk/consumer.test.ts')), 'marked once');
  t.notOk(runsOnce(at('test/catalog/products.test.ts')));
});

t.test('--changed selects what a change touches', async (t) => {
  const relative = (files: string[]) => files.map((f) => path.relative(root, f));
  const catalog = relative(testFilesTouchedBy([at('src/catalog/products.service.ts')], all));
  t.ok(catalog.includes('test/catalog/products.test.ts'), 'the area of a changed src/ module');
  t.notOk(catalog.includes('test/webhooks/delivery.test.ts'), 'not every file that starts a server');
  const identity = relative(testFilesTouchedBy([at('src/identity/sessions.service.ts')], all));
  t.ok(identity.includes('test/sso/local-sign-in.test.ts'), 'an area whose tests live in more than one folder');
  t.ok(identity.includes('test/bench/harness.test.ts'), 'a test that imports the changed module');
  const helper = relative(testFilesTouchedBy([at('test/webhooks/webhook-fixtures.ts')], all));
  t.ok(helper.includes('test/webhooks/delivery.test.ts'), 'the importers of a changed helper');
  t.notOk(helper.includes('test/catalog/products.test.ts'));
  const migration = testFilesTouchedBy([at('src/db/migrations/0011_webhooks.ts')], all);
  t.same(migration, all.filter(reachesDatabase), 'a migration: every file that reaches a database');
  t.same(testFilesTouchedBy([at('test/catalog/listing.test.ts')], all), [at('test/catalog/listing.test.ts')], 'a changed test file');
});
