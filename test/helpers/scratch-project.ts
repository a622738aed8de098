/**
 * A scratch copy of the project for tests that run `npm run generate` (or typecheck) on edited specs:
 * what generate reads (the specs, redocly.yaml's rules, the sources and scripts), with node_modules
 * linked, removed at the test's end. One list, so a new input of generate reaches every such test.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Test } from 'tap';

const root = path.resolve(import.meta.dirname, '../..');
const GENERATE_INPUTS = ['schema', 'src', 'scripts', 'openapi', 'codegen.ts', 'tsconfig.json', 'package.json', 'redocly.yaml'];

/** The folder of a fresh copy; `extra` names more entries to copy (e.g. `generated`). */
export function scratchProject(t: Test, prefix: string, extra: readonly string[] = []): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `schemaforge-${prefix}-`));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  for (const entry of [...GENERATE_INPUTS, ...extra]) fs.cpSync(path.join(root, entry), path.join(dir, entry), { recursive: true });
  fs.symlinkSync(path.join(root, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  return dir;
}
