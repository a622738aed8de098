/**
 * `npm run lint` (oxlint with oxlint.config.mjs, type-aware) on a scratch tree laid out like this
 * project: a clean tree passes, and each of the rules the project leans on refuses its mistake by
 * name: a floating promise and a member read of `any` (rules that need the type checker), an import
 * from an area into plumbing (the dependency rule), and an import cycle, type-only imports included.
 * In test/, a tap subtest left unawaited is allowed (tap awaits it).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';

const root = path.resolve(import.meta.dirname, '../..');

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lint-'));
t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
fs.copyFileSync(path.join(root, 'oxlint.config.mjs'), path.join(dir, 'oxlint.config.mjs'));
fs.copyFileSync(path.join(root, 'tsconfig.json'), path.join(dir, 'tsconfig.json'));
// The type checker resolves `node:` and tap's types from the project's packages.
fs.symlinkSync(path.join(root, 'node_modules'), path.join(dir, 'node_modules'));

function write(file: string, text: string): void {
  fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
  fs.writeFileSync(path.join(dir, file), text);
}

interface Finding {
  /** `file:line rule`, e.g. `src/orders/careless.ts:3 typescript(no-floating-promises)`. */
  at: string;
  help: string;
}

/**
 * Runs the project's lint command in the scratch tree; `only` lints those files alone. Its findings
 * are read from oxlint's JSON report, which is the same in a terminal and in CI.
 */
async function lint(...only: string[]): Promise<{ code: number; findings: Finding[] }> {
  const oxlint = path.join(root, 'node_modules/.bin/oxlint');
  const { code, out } = await promisify(execFile)(oxlint, ['-c', 'oxlint.config.mjs', '--format=json', ...only], { cwd: dir }).then(
    (r) => ({ code: 0, out: r.stdout }),
    (e: { code: number; stdout: string }) => ({ code: e.code, out: e.stdout }),
  );
  const report = JSON.parse(out) as {
    diagnostics: { code: string; filename: string; help?: string; labels: { span: { line: number } }[] }[];
  };
  const findings = report.diagnostics.map((d) => ({ at: `${d.filename}:${d.labels[0]?.span.line} ${d.code}`, help: d.help ?? '' }));
  return { code, findings };
}

write('src/http/plumbing.ts', 'export const status = (code: number): string => `status ${code}`;\n');
write(
  'src/orders/orders.service.ts',
  "import { status } from '../http/plumbing.ts';\nexport async function place(): Promise<string> {\n  return status(201);\n}\n",
);
write(
  'test/orders.test.ts',
  "import t from 'tap';\nimport { place } from '../src/orders/orders.service.ts';\nt.test('places', async (t) => {\n  t.equal(await place(), 'status 201');\n});\n",
);

t.test('a clean tree passes, a tap subtest left unawaited included', async (t) => {
  const clean = await lint();
  t.same(clean.findings, []);
  t.equal(clean.code, 0);
});

t.test('a floating promise and a member read of any fail, named by rule (type-aware)', async (t) => {
  write(
    'src/orders/careless.ts',
    "import { place } from './orders.service.ts';\nexport function go(text: string): number {\n  place();\n  return JSON.parse(text).count;\n}\n",
  );
  t.teardown(() => fs.rmSync(path.join(dir, 'src/orders/careless.ts')));
  const found = await lint('src/orders/careless.ts');
  t.equal(found.code, 1);
  t.same(
    found.findings.map((f) => f.at),
    [
      'src/orders/careless.ts:3 typescript(no-floating-promises)',
      'src/orders/careless.ts:4 typescript(no-unsafe-return)',
      'src/orders/careless.ts:4 typescript(no-unsafe-member-access)',
    ],
    'the unawaited call, and the read of .count on JSON.parse returned as a number',
  );
});

t.test('plumbing importing an area fails with the dependency rule', async (t) => {
  write('src/http/leaky.ts', "import { place } from '../orders/orders.service.ts';\nexport const leak = place;\n");
  t.teardown(() => fs.rmSync(path.join(dir, 'src/http/leaky.ts')));
  const found = await lint('src/http/leaky.ts');
  t.equal(found.code, 1);
  t.match(found.findings, [
    { at: 'src/http/leaky.ts:1 eslint(no-restricted-imports)', help: /^src\/\{auth,db,graphql,http\} are shared plumbing/ },
  ]);
});

t.test('an import cycle fails, type-only imports included, naming its files', async (t) => {
  write('src/orders/types-a.ts', "import type { B } from './types-b.ts';\nexport interface A { b?: B }\n");
  write('src/orders/types-b.ts', "import type { A } from './types-a.ts';\nexport interface B { a?: A }\n");
  t.teardown(() => ['types-a.ts', 'types-b.ts'].forEach((f) => fs.rmSync(path.join(dir, 'src/orders', f))));
  const found = await lint();
  t.equal(found.code, 1);
  t.same(found.findings.map((f) => f.at).sort(), ['src/orders/types-a.ts:1 import(no-cycle)', 'src/orders/types-b.ts:1 import(no-cycle)']);
});
