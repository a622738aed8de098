/**
 * `npm test`'s static checks (typecheck, generate:check, lint:specs, spec:diff against the previous
 * commit, lint, knip, format:check, and `cycles`: no import cycle, type imports included), run
 * in two lanes at once: each check is one mostly single-threaded process and the budget machine has
 * two cores (decision 74). Each check's output is printed whole when it ends, so the log reads as if
 * they had run one after another. Exits 1 when any check failed, after every lane has finished.
 */
import { spawn } from 'node:child_process';

const lanes = [
  ['typecheck', 'generate:check', 'knip', 'cycles'],
  ['lint', 'lint:specs', 'spec:diff HEAD~1', 'format:check'],
];

/** `script` is an npm script's name, optionally followed by its arguments. */
function run(script: string): Promise<boolean> {
  const started = Date.now();
  const [name, ...args] = script.split(' ');
  return new Promise((resolve) => {
    const child = spawn('npm', ['run', '--silent', name!, ...(args.length ? ['--', ...args] : [])], { stdio: ['ignore', 'pipe', 'pipe'] });
    const output: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => output.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => output.push(chunk));
    child.on('close', (code) => {
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      process.stdout.write(`\n> ${script} (${code === 0 ? 'ok' : 'FAILED'}, ${seconds} s)\n${Buffer.concat(output).toString()}`);
      resolve(code === 0);
    });
  });
}

async function lane(scripts: string[]): Promise<boolean> {
  let ok = true;
  for (const script of scripts) ok = (await run(script)) && ok;
  return ok;
}

const results = await Promise.all(lanes.map(lane));
process.exit(results.every(Boolean) ? 0 : 1);
