/** `npm run generate:check`: regenerates into a temporary folder and fails on any difference. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { generate } from './generate.ts';
import { SpecError } from './generate/spec-error.ts';

const root = path.resolve(import.meta.dirname, '..');
const committed = path.join(root, 'generated');
const fresh = fs.mkdtempSync(path.join(os.tmpdir(), 'generated-'));

function listFiles(dir: string, base = dir): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    return e.isDirectory() ? listFiles(full, base) : [path.relative(base, full)];
  });
}

let refused: SpecError | undefined;
try {
  await generate(root, fresh);
} catch (error) {
  fs.rmSync(fresh, { recursive: true, force: true });
  if (!(error instanceof SpecError)) throw error;
  refused = error;
}
if (refused) {
  // The specs themselves are refused: their lines as `npm run generate` prints them, without a stack;
  // exit now rather than wait for the row types' child process.
  console.error(refused.message);
  process.exit(1);
}

try {
  const a = new Set(listFiles(committed));
  const b = new Set(listFiles(fresh));
  const problems: string[] = [];
  for (const f of b) if (!a.has(f)) problems.push(`missing from generated/: ${f}`);
  for (const f of a) if (!b.has(f)) problems.push(`stale in generated/ (no longer generated): ${f}`);
  for (const f of b) {
    if (a.has(f) && !fs.readFileSync(path.join(committed, f)).equals(fs.readFileSync(path.join(fresh, f)))) {
      problems.push(`differs from its spec: generated/${f}`);
    }
  }
  if (problems.length) {
    console.error(`generated/ is out of date; run \`npm run generate\` and commit:\n  ${problems.join('\n  ')}`);
    process.exit(1);
  }
  console.log(`generated/ matches the specs (${b.size} files)`);
} finally {
  fs.rmSync(fresh, { recursive: true, force: true });
}
