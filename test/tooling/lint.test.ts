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

/** Runs the project's lint command in the scratch tree; `only` lints those files alone. */
async function lint(...only: string[]): Promise<{ code: number; out: string }> {
  const oxlint = path.join(root, 'node_modules/.bin/oxlint');
  return promisify(execFile)(oxlint, ['-c', 'oxlint.config.mjs', ...only], { cwd: dir }).then(
    (r) => ({ code: 0, out: r.stdout }),
    (e: { code: number; stdout: string }) => ({ code: e.code, out: e.stdout }),
  );
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
  t.equal(clean.code, 0, clean.out);
});

t.test('a floating promise and a member read of any fail, named by rule (type-aware)', async (t) => {
  write(
    'src/orders/careless.ts',
    "import { place } from './orders.service.ts';\nexport function go(text: string): number {\n  place();\n  return JSON.parse(text).count;\n}\n",
  );
  t.teardown(() => fs.rmSync(path.join(dir, 'src/orders/careless.ts')));
  const found = await lint('src/orders/careless.ts');
  t.equal(found.code, 1);
  t.match(found.out, /typescript\(no-floating-promises\)[\s\S]*careless\.ts:3:/, 'the unawaited call');
  t.match(found.out, /typescript\(no-unsafe-member-access\)[\s\S]*careless\.ts:4:/, 'the read of .count on JSON.parse');
});

t.test('plumbing importing an area fails with the dependency rule', async (t) => {
  write('src/http/leaky.ts', "import { place } from '../orders/orders.service.ts';\nexport const leak = place;\n");
  t.teardown(() => fs.rmSync(path.join(dir, 'src/http/leaky.ts')));
  const found = await lint('src/http/leaky.ts');
  t.equal(found.code, 1);
  t.match(found.out, /no-restricted-imports[\s\S]*src\/\{auth,db,graphql,http\} are shared plumbing/);
});

t.test('an import cycle fails, type-only imports included, naming its files', async (t) => {
  write('src/orders/types-a.ts', "import type { B } from './types-b.ts';\nexport interface A { b?: B }\n");
  write('src/orders/types-b.ts', "import type { A } from './types-a.ts';\nexport interface B { a?: A }\n");
  t.teardown(() => ['types-a.ts', 'types-b.ts'].forEach((f) => fs.rmSync(path.join(dir, 'src/orders', f))));
  const found = await lint();
  t.equal(found.code, 1);
  t.match(found.out, /import\(no-cycle\)[\s\S]*types-a\.ts[\s\S]*types-b\.ts/);
});
