/**
 * `npm run bench -- settings graphql|rest [--variant V] [--rounds N] [--seconds N] NAME=VALUE ...`:
 * what a feature costs, measured as a setting that turns it off. Our stand-in server (in-memory
 * resolvers or the stubbed repository) runs as configured by default and once per setting given
 * (`LOG_LEVEL=silent`: no access line), beside the peer of the case (Mercurius+jit, bare Fastify),
 * each in its own process pinned as the bench pins servers, measured in alternating rounds. Per
 * target: the median req/s, the median ratio to the peer (per round) and the CPU time per request
 * the kernel counted for the process (/proc/<pid>/stat, all threads), which unlike the profiler's
 * samples (cpu-profile.ts) includes system calls and the garbage collector's threads.
 */
import fs from 'node:fs';
import { LoadGenerator } from './load.ts';
import { choosePinning, startServer, tsx, type Server } from './procs.ts';
import { productionEnv } from './context.ts';
import { standInCase, standInLoad, type StandInTarget as Target } from './stand-in-targets.ts';

/** User and system CPU seconds of a process so far (clock ticks of /proc/<pid>/stat, fields 14 and 15). */
function cpuSeconds(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/** Ours as configured, then ours once per NAME=VALUE setting, then the peer. */
async function targetsOf(caseName: string, variant: string | undefined, settings: string[]): Promise<Target[]> {
  const { ours, peer } = await standInCase(caseName, variant);
  const withSetting = (setting: string): Target => {
    const [name, value] = setting.split('=', 2);
    if (!name || value === undefined) throw new Error(`settings are NAME=VALUE, not ${setting}`);
    return { ...ours, name: `ours, ${setting}`, env: { [name]: value } };
  };
  return [ours, ...settings.map(withSetting), peer];
}

export async function compareSettings(
  caseName: string,
  variant: string | undefined,
  settings: string[],
  rounds: number,
  seconds: number,
): Promise<string> {
  const pinning = choosePinning();
  const targets = await targetsOf(caseName, variant, settings);
  const load = await LoadGenerator.start(pinning.load);
  const running: { target: Target; server: Server; rps: number[]; cpuUs: number[] }[] = [];
  try {
    for (const target of targets) {
      const env = productionEnv(target.env);
      const server = await startServer(target.name, tsx('scripts/bench/serve.ts', target.kind, target.data), env, pinning.server);
      running.push({ target, server, rps: [], cpuUs: [] });
    }
    const request = (r: (typeof running)[number], s: number) => standInLoad(r.target, r.server.url, s);
    for (const r of running) await load.measure(request(r, 3));
    for (let round = 0; round < rounds; round++) {
      for (const r of round % 2 ? [...running].reverse() : running) {
        const before = cpuSeconds(r.server.pid!);
        const measured = await load.measure(request(r, seconds));
        r.cpuUs.push(((cpuSeconds(r.server.pid!) - before) * 1e6) / measured.requests);
        r.rps.push(measured.rps);
      }
    }
  } finally {
    for (const r of running) await r.server.stop();
    await load.close();
  }
  const peer = running[running.length - 1]!;
  return [
    `\`npm run bench -- settings ${caseName}${variant ? ` --variant ${variant}` : ''} --rounds ${rounds} --seconds ${seconds} ${settings.join(' ')}\`; ${pinning.note}, ${rounds} alternating rounds of ${seconds} s.`,
    '',
    `| Server | req/s (median) | ratio to ${peer.target.name} (median per round) | CPU µs per request (median) |`,
    '|---|---:|---:|---:|',
    ...running.map(
      (r) =>
        `| ${r.target.name} | ${Math.round(median(r.rps))} | ${median(r.rps.map((x, i) => x / peer.rps[i]!)).toFixed(2)}× | ${median(r.cpuUs).toFixed(1)} |`,
    ),
    '',
  ].join('\n');
}
