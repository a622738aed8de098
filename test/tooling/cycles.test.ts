/**
 * `npm run cycles` (oxlint's import/no-cycle with .oxlintrc.json) refuses an import cycle, a cycle
 * of type-only imports too, and names its files; a tree without one passes.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';

const root = path.resolve(import.meta.dirname, '../..');

async function cycles(dir: string): Promise<{ code: number; out: string }> {
  const oxlint = path.join(root, 'node_modules/.bin/oxlint');
  return promisify(execFile)(oxlint, ['-c', path.join(root, '.oxlintrc.json'), '--max-warnings=0', dir], { cwd: root }).then(
    (r) => ({ code: 0, out: r.stdout }),
    (e: { code: number; stdout: string }) => ({ code: e.code, out: e.stdout }),
  );
}

t.test('an import cycle fails the check, type-only imports included', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cycles-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const write = (name: string, text: string) => fs.writeFileSync(path.join(dir, name), text);
  write('a.ts', "import { b } from './b.ts';\nexport const a = (): number => b() + 1;\n");
  write('b.ts', 'export const b = (): number => 1;\n');
  t.equal((await cycles(dir)).code, 0, 'no cycle: passes');

  write('types-a.ts', "import type { B } from './types-b.ts';\nexport interface A { b?: B }\n");
  write('types-b.ts', "import type { A } from './types-a.ts';\nexport interface B { a?: A }\n");
  const typed = await cycles(dir);
  t.equal(typed.code, 1, 'a cycle of type-only imports fails');
  t.match(typed.out, /import\(no-cycle\)[\s\S]*types-a\.ts[\s\S]*types-b\.ts/, 'naming its files');
});
