/**
 * `npm run bench -- generate [--rounds N]`: wall-clock time of `npm run generate` as a user meets it,
 * cold and warm, alternating. Cold is a fresh clone after `npm ci`: no row-type cache
 * (node_modules/.cache/schemaforge) and no tsx transpile cache (<tmp>/tsx-<uid>); warm is the run
 * right after. Each run is a new process (`node --import tsx scripts/generate.ts`, what the npm
 * script runs, without npm's own start-up) writing into a temporary folder.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from './procs.ts';

function timeGenerate(out: string): number {
  const started = process.hrtime.bigint();
  execFileSync(process.execPath, ['--import', 'tsx', 'scripts/generate.ts', '--out', out], { cwd: ROOT, stdio: 'ignore' });
  return Number(process.hrtime.bigint() - started) / 1e9;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export function benchGenerate(rounds: number): string {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'generate-bench-'));
  const caches = [path.join(ROOT, 'node_modules/.cache/schemaforge'), path.join(os.tmpdir(), `tsx-${os.userInfo().uid}`)];
  const cold: number[] = [];
  const warm: number[] = [];
  try {
    for (let round = 0; round < rounds; round++) {
      for (const cache of caches) fs.rmSync(cache, { recursive: true, force: true });
      cold.push(timeGenerate(out));
      warm.push(timeGenerate(out));
      console.log(`round ${round + 1}: cold ${cold.at(-1)!.toFixed(2)} s, warm ${warm.at(-1)!.toFixed(2)} s`);
    }
  } finally {
    fs.rmSync(out, { recursive: true, force: true });
  }
  const line = (name: string, values: number[], target: number) =>
    `| ${name} | ${median(values).toFixed(2)} s | ${Math.max(...values).toFixed(2)} s | < ${target} s | ${median(values) < target ? 'met' : 'MISSED'} |`;
  return [
    `| npm run generate (${rounds} rounds) | median | slowest | target | |`,
    '|---|---|---|---|---|',
    line('cold (fresh clone after npm ci)', cold, 20),
    line('warm', warm, 10),
  ].join('\n');
}
