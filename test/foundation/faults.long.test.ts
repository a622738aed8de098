// test-suite: once (every scenario starts server processes and databases of its own; the suite's database is not used)
/**
 * The fault scenarios of `npm run faults` (scripts/faults.ts), at the sizes docs/reliability.md
 * reports, in the long tier: their value is in their length (twenty kills at random moments, restarts
 * under load), which `npm test` does not pay for. Each scenario prints what it found and exits 1 when
 * an acknowledged write was lost or a refusal was not the documented one.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import t from 'tap';

const root = path.resolve(import.meta.dirname, '../..');

function scenario(name: string, rounds?: number): Promise<{ code: number; output: string }> {
  const args = ['--import', 'tsx', 'scripts/faults.ts', name, ...(rounds ? ['--rounds', String(rounds)] : [])];
  return new Promise((resolve) => {
    execFile(process.execPath, args, { cwd: root, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) =>
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, output: `${stdout}${stderr}` }),
    );
  });
}

const SCENARIOS: { name: string; rounds?: number; what: string; skip?: string | false }[] = [
  { name: 'kill-embedded', rounds: 20, what: 'kill -9 mid-write on the embedded database, 20 times: every acknowledged write survives' },
  { name: 'sigterm-under-load', rounds: 5, what: 'SIGTERM under load, 5 times: whole answers or clean refusals, exit 0, nothing lost' },
  {
    name: 'postgres-restart',
    rounds: 3,
    what: 'PostgreSQL stopped and started under load, 3 times: 503s in time, ready again, nothing lost',
  },
  {
    name: 'disk-full',
    what: 'the embedded database on a full disk: a 507 Problem, stored files intact, the folder opens again',
    skip: process.getuid?.() === 0 ? false : 'mounts a tmpfs: root only',
  },
];

for (const s of SCENARIOS) {
  t.test(s.what, { timeout: 400_000, skip: s.skip ?? false }, async (t) => {
    const { code, output } = await scenario(s.name, s.rounds);
    t.comment(output.trim().split('\n').slice(-6).join('\n'));
    t.equal(code, 0, `npm run faults -- ${s.name}${s.rounds ? ` --rounds ${s.rounds}` : ''} exits 0${code ? `:\n${output}` : ''}`);
  });
}
