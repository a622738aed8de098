/**
 * `npm run bench -- profile graphql|rest [--variant V] [--rounds N] [--seconds N]`: where each server's CPU goes
 * on one request, ours against its peer, side by side (issue 47 item 3). Not a comparison of
 * speed (that is `npm run bench`): a table of self time per request, by function and by package.
 *
 * The cases are stand-in-targets.ts's: graphql, ours on in-memory resolvers and Mercurius with
 * graphql-jit; rest, ours on the stubbed repository and the bare Fastify route.
 *
 * Both servers run at once, pinned as in the bench to the same core (production settings, logs to
 * /dev/null), the load generator on the other core; each is warmed up for 3 s, then measured in
 * `--rounds` (4) alternating rounds of `--seconds` (5): SIGUSR2 starts the V8 sampling profiler
 * inside the server (100 µs interval, `serve.ts`), autocannon runs, SIGUSR2 stops it. Alternating
 * spreads the machine's changes in speed over both. The profiles are read at the servers' end: each
 * function's self time over the rounds divided by the requests answered in them. The idle time
 * (`(idle)`) is left out; `(program)` and the garbage collector are kept, as they are work done for
 * the requests.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LoadGenerator } from './load.ts';
import { choosePinning, ROOT, startServer, tsx } from './procs.ts';
import { productionEnv } from './context.ts';
import { standInCase, standInLoad, type StandInTarget as Target } from './stand-in-targets.ts';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

interface Measured {
  target: Target;
  requests: number;
  rps: number;
  /** Self time in µs by function key, and by package. */
  byFunction: Map<string, number>;
  byPackage: Map<string, number>;
  busyUs: number;
}

/** Where a function lives: its package under node_modules, our source file, or Node's own. */
function packageOf(url: string): string {
  if (!url) return '(V8 / native)';
  const modules = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (modules) return modules[1]!;
  if (url.startsWith('node:')) return `node:${url.slice(5).split('/')[0]}`;
  const local = url.replace(/^file:\/\//, '');
  return local.startsWith(ROOT) ? path.relative(ROOT, local) : local;
}

function keyOf(frame: CallFrame): string {
  const where = frame.url ? `${packageOf(frame.url)}:${frame.lineNumber + 1}` : '';
  return `${frame.functionName || '(anonymous)'}${where ? ` ${where}` : ''}`;
}

function analyse(profile: Profile): { byFunction: Map<string, number>; byPackage: Map<string, number>; busyUs: number } {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const byFunction = new Map<string, number>();
  const byPackage = new Map<string, number>();
  let busyUs = 0;
  // timeDeltas[i] is the time before sample i: the time a sample stands for is the next delta.
  for (let i = 0; i < profile.samples.length; i++) {
    const node = nodes.get(profile.samples[i]!)!;
    const us = profile.timeDeltas[i + 1] ?? 0;
    if (node.callFrame.functionName === '(idle)') continue;
    busyUs += us;
    const key = keyOf(node.callFrame);
    byFunction.set(key, (byFunction.get(key) ?? 0) + us);
    const pkg = node.callFrame.url ? packageOf(node.callFrame.url) : node.callFrame.functionName;
    byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + us);
  }
  return { byFunction, byPackage, busyUs };
}

interface Running {
  target: Target;
  pid: number;
  stop(): Promise<void>;
  file: string;
  url: string;
  requests: number;
  seconds: number;
}

async function startTarget(target: Target, cpu: string | null): Promise<Running> {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'cpu-profile-')), 'profiles.json');
  const env = productionEnv({ ...target.env, BENCH_CPU_PROFILE: file });
  const server = await startServer(target.name, tsx('scripts/bench/serve.ts', target.kind, target.data), env, cpu);
  return { target, pid: server.pid!, stop: server.stop, file, url: server.url, requests: 0, seconds: 0 };
}

const loadRequest = (running: Running, seconds: number) => standInLoad(running.target, running.url, seconds);

/** The merged self times of the profiles a server wrote. */
function read(running: Running): Measured {
  const profiles = JSON.parse(fs.readFileSync(running.file, 'utf8')) as Profile[];
  // BENCH_KEEP_PROFILES=<dir>: the profiles kept (one .cpuprofile per round), for DevTools or a closer look.
  if (process.env.BENCH_KEEP_PROFILES) {
    fs.mkdirSync(process.env.BENCH_KEEP_PROFILES, { recursive: true });
    profiles.forEach((p, i) =>
      fs.writeFileSync(path.join(process.env.BENCH_KEEP_PROFILES!, `${running.target.kind}-${i + 1}.cpuprofile`), JSON.stringify(p)),
    );
  }
  const byFunction = new Map<string, number>();
  const byPackage = new Map<string, number>();
  let busyUs = 0;
  for (const profile of profiles) {
    const one = analyse(profile);
    for (const [k, v] of one.byFunction) byFunction.set(k, (byFunction.get(k) ?? 0) + v);
    for (const [k, v] of one.byPackage) byPackage.set(k, (byPackage.get(k) ?? 0) + v);
    busyUs += one.busyUs;
  }
  return { target: running.target, requests: running.requests, rps: running.requests / running.seconds, byFunction, byPackage, busyUs };
}

async function profileTargets(
  targets: Target[],
  rounds: number,
  seconds: number,
  load: LoadGenerator,
  cpu: string | null,
): Promise<Measured[]> {
  const running: Running[] = [];
  try {
    for (const target of targets) running.push(await startTarget(target, cpu));
    for (const r of running) await load.measure(loadRequest(r, 3));
    for (let round = 0; round < rounds; round++) {
      // ours first in even rounds, the peer first in odd ones
      for (const r of round % 2 ? [...running].reverse() : running) {
        process.kill(r.pid, 'SIGUSR2');
        const measured = await load.measure(loadRequest(r, seconds));
        process.kill(r.pid, 'SIGUSR2');
        r.requests += measured.requests;
        r.seconds += measured.seconds;
      }
    }
    // The last stop is asynchronous in the server: a moment for it before the end writes the file.
    await new Promise((resolve) => setTimeout(resolve, 500));
    for (const r of running) await r.stop();
    return running.map(read);
  } finally {
    for (const r of running) {
      await r.stop();
      fs.rmSync(path.dirname(r.file), { recursive: true, force: true });
    }
  }
}

const us = (value: number) => value.toFixed(1);

function table(results: Measured[], pick: (m: Measured) => Map<string, number>, rows: number): string[] {
  const [ours, peer] = results as [Measured, Measured];
  const perRequest = (m: Measured, key: string) => (pick(m).get(key) ?? 0) / m.requests;
  const keys = new Set([...pick(ours).keys(), ...pick(peer).keys()]);
  // Ordered by what ours spends beyond the peer: where our time goes and theirs does not.
  const ordered = [...keys]
    .map((key) => ({ key, ours: perRequest(ours, key), peer: perRequest(peer, key) }))
    .sort((a, b) => b.ours - b.peer - (a.ours - a.peer))
    .slice(0, rows);
  return [
    `| ours µs/req | ${peer.target.name} µs/req | ours − peer | |`,
    '|---:|---:|---:|---|',
    ...ordered.map((r) => `| ${us(r.ours)} | ${us(r.peer)} | ${us(r.ours - r.peer)} | \`${r.key.replaceAll('|', '\\|')}\` |`),
  ];
}

export async function profileCase(caseName: string, variant: string | undefined, rounds: number, seconds: number): Promise<string> {
  const pinning = choosePinning();
  const { title, ours: oursTarget, peer: peerTarget } = await standInCase(caseName, variant);
  const targets = [oursTarget, peerTarget];
  const load = await LoadGenerator.start(pinning.load);
  let results: Measured[];
  try {
    results = await profileTargets(targets, rounds, seconds, load, pinning.server);
  } finally {
    await load.close();
  }
  const [ours, peer] = results as [Measured, Measured];
  const cpuPerRequest = (m: Measured) => m.busyUs / m.requests;
  return [
    `### CPU profile: ${title}`,
    '',
    `\`npm run bench -- profile ${caseName}${variant ? ` --variant ${variant}` : ''} --rounds ${rounds} --seconds ${seconds}\`; ${pinning.note}, ${rounds} alternating rounds of ${seconds} s. ` +
      `Ours ${Math.round(ours.rps)} req/s, **${us(cpuPerRequest(ours))} µs of CPU per request**; ${peer.target.name} ${Math.round(peer.rps)} req/s, **${us(cpuPerRequest(peer))} µs**.`,
    '',
    'By package or source file (self time per request):',
    '',
    ...table(results, (m) => m.byPackage, 20),
    '',
    'By function, where ours spends most beyond the peer:',
    '',
    ...table(results, (m) => m.byFunction, 30),
    '',
  ].join('\n');
}
