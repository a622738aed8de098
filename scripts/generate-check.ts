/**
 * `npm run generate:check`: regenerates into temporary folders and fails on any difference with
 * generated/ or with the SDK package's built files (packages/sdk/lib/).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { generate } from './generate.ts';
import { SpecError } from './generate/spec-error.ts';

const root = path.resolve(import.meta.dirname, '..');
const fresh = fs.mkdtempSync(path.join(os.tmpdir(), 'generated-'));
/** Each committed folder generate writes, and where this run writes it. */
const outputs = [
  { committed: path.join(root, 'generated'), fresh: path.join(fresh, 'generated') },
  { committed: path.join(root, 'packages/sdk/lib'), fresh: path.join(fresh, 'sdk-lib') },
];

function listFiles(dir: string, base = dir): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    return e.isDirectory() ? listFiles(full, base) : [path.relative(base, full)];
  });
}

let refused: SpecError | undefined;
try {
  await generate(root, outputs[0]!.fresh, { sdkDir: outputs[1]!.fresh });
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
  const problems: string[] = [];
  let count = 0;
  for (const output of outputs) {
    const dir = `${path.relative(root, output.committed)}/`;
    const a = new Set(listFiles(output.committed));
    const b = new Set(listFiles(output.fresh));
    count += b.size;
    for (const f of b) if (!a.has(f)) problems.push(`missing from ${dir}: ${f}`);
    for (const f of a) if (!b.has(f)) problems.push(`stale in ${dir} (no longer generated): ${f}`);
    for (const f of b) {
      if (a.has(f) && !fs.readFileSync(path.join(output.committed, f)).equals(fs.readFileSync(path.join(output.fresh, f)))) {
        problems.push(`differs from its spec: ${dir}${f}`);
      }
    }
  }
  if (problems.length) {
    console.error(`generated files are out of date; run \`npm run generate\` and commit:\n  ${problems.join('\n  ')}`);
    process.exit(1);
  }
  console.log(`generated/ and packages/sdk/lib/ match the specs (${count} files)`);
} finally {
  fs.rmSync(fresh, { recursive: true, force: true });
}
