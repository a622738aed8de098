/**
 * `npm test`'s static checks (the typecheck: TypeScript 7's tsc, on one thread; the lint: oxlint with its
 * type-aware rules and import cycles; generate:check, which lints the OpenAPI documents as lint:specs
 * does; lint:sdl; spec:diff against the previous commit; knip; format:check), run in two lanes at
 * once: each check is one process and the budget machine has two cores (decision 74). Each check's
 * output is printed whole when it ends, so the log reads as if they had run one after another, and
 * its wall time and CPU seconds go to the suite's ledger.
 *
 * `npm run checks` runs them alone and exits 1 when any failed; `npm test` runs them first through
 * `runChecks` (scripts/test-suite.ts --with-checks) and stops there when one failed.
 */
import path from 'node:path';
import { spawnMeasured } from './test-suite/cpu.ts';
import type { Ledger } from './test-suite/ledger.ts';

// Two lanes of about the same CPU time (the ledger's figures for each check).
const lanes = [
  // generate:check lints every OpenAPI document with redocly.yaml's rules, as `redocly lint` would
  // (scripts/generate/openapi.ts lintDocument): of lint:specs only the SDL's checks are left.
  // The typecheck on one thread: the other lane has the second core, and tsc's parallel checkers
  // spend about half as much CPU again for the same answer (5–9 CPU-s against 8–15, no later).
  ['generate:check', 'typecheck --singleThreaded', 'lint:sdl'],
  ['lint', 'knip', 'spec:diff HEAD~1', 'format:check'],
];

/** `script` is an npm script's name, optionally followed by its arguments. */
function run(script: string, ledger: Ledger): Promise<boolean> {
  const started = Date.now();
  const [name, ...args] = script.split(' ');
  const { child, cpuSeconds } = spawnMeasured('npm', ['run', '--silent', name!, ...(args.length ? ['--', ...args] : [])], {});
  const output: Buffer[] = [];
  child.stdout!.on('data', (chunk: Buffer) => output.push(chunk));
  child.stderr!.on('data', (chunk: Buffer) => output.push(chunk));
  return new Promise((resolve) => {
    child.on('close', (code) => {
      const wallMs = Date.now() - started;
      void cpuSeconds.then((cpu) => {
        ledger[`check ${script}`] = { wallMs, cpuSeconds: cpu ?? 0 };
        process.stdout.write(
          `\n> ${script} (${code === 0 ? 'ok' : 'FAILED'}, ${(wallMs / 1000).toFixed(1)} s)\n${Buffer.concat(output).toString()}`,
        );
        resolve(code === 0);
      });
    });
  });
}

/** Runs every check; their ledger entries are added to `ledger`. */
export async function runChecks(ledger: Ledger): Promise<boolean> {
  const lane = async (scripts: string[]) => {
    let ok = true;
    for (const script of scripts) ok = (await run(script, ledger)) && ok;
    return ok;
  };
  return (await Promise.all(lanes.map(lane))).every(Boolean);
}

if (process.argv[1] && import.meta.filename === path.resolve(process.argv[1])) process.exit((await runChecks({})) ? 0 : 1);
