/**
 * `npm run bench`: runs every benchmark module in scripts/bench/ (or those named as arguments) and
 * prints their tables. Each module measures our full stack against a baseline in the same process tree
 * and returns Markdown for docs/benchmarks.md.
 */
import fs from 'node:fs';
import path from 'node:path';

const dir = path.join(import.meta.dirname, 'bench');
const wanted = process.argv.slice(2);
const modules = fs
  .readdirSync(dir)
  .filter((f) => f.endsWith('.ts') && !f.startsWith('_'))
  .sort()
  .filter((f) => !wanted.length || wanted.includes(f.replace(/\.ts$/, '')));

for (const file of modules) {
  const mod = (await import(path.join(dir, file))) as { run: () => Promise<string> };
  console.log(`\n## ${file.replace(/\.ts$/, '')}\n`);
  console.log(await mod.run());
}
