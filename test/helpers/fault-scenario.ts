/**
 * One fault scenario of `npm run faults` (scripts/faults.ts) as a long-tier test: it runs the
 * command as an operator does and passes when the command exits 0 (it exits 1 when an acknowledged
 * write was lost or a refusal was not the documented one). One scenario a file, so that each has the
 * runner's whole time limit for a file and the scenarios run side by side.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import t from 'tap';

const root = path.resolve(import.meta.dirname, '../..');

/** Under the runner's limit of 600 s a file, which then still reports what the scenario printed. */
const SCENARIO_TIMEOUT_MS = 570_000;

function run(name: string, rounds?: number): Promise<{ code: number; output: string }> {
  const args = ['--import', 'tsx', 'scripts/faults.ts', name, ...(rounds ? ['--rounds', String(rounds)] : [])];
  return new Promise((resolve) => {
    execFile(process.execPath, args, { cwd: root, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) =>
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, output: `${stdout}${stderr}` }),
    );
  });
}

export function faultScenario(what: string, name: string, options: { rounds?: number; skip?: string | false } = {}): void {
  t.test(what, { timeout: SCENARIO_TIMEOUT_MS, skip: options.skip ?? false }, async (t) => {
    const { code, output } = await run(name, options.rounds);
    t.comment(output.trim().split('\n').slice(-6).join('\n'));
    const command = `npm run faults -- ${name}${options.rounds ? ` --rounds ${options.rounds}` : ''}`;
    t.equal(code, 0, `${command} exits 0${code ? `:\n${output}` : ''}`);
  });
}
