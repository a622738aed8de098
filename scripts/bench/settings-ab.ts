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
import os from 'node:os';
import path from 'node:path';
import { signToken } from '../../src/auth/jwt.ts';
import { JWT_SECRET, MEMORY_GRAPHQL_PATH, VIEWER } from './fixtures.ts';
import { request as graphqlRequest, VARIANTS as GRAPHQL_VARIANTS, type Variant as GraphQLVariant } from './graphql.ts';
import { LoadGenerator } from './load.ts';
import { choosePinning, startServer, tsx, type Server } from './procs.ts';
import { REST_VARIANTS } from './products.ts';

interface Target {
  name: string;
  kind: string;
  data: 'memory' | 'stub';
  env: Record<string, string>;
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
}

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

async function targetsOf(caseName: string, variant: string | undefined, settings: string[]): Promise<Target[]> {
  const token = await signToken(JWT_SECRET, { sub: VIEWER, expiresIn: 24 * 3600 });
  const envOf = (setting: string | null): Record<string, string> => {
    if (setting === null) return {};
    const [name, value] = setting.split('=', 2);
    if (!name || value === undefined) throw new Error(`settings are NAME=VALUE, not ${setting}`);
    return { [name]: value };
  };
  const ours = [null, ...settings];
  if (caseName === 'graphql') {
    const v = (variant ?? 'feed') as GraphQLVariant;
    if (!GRAPHQL_VARIANTS.includes(v)) throw new Error(`graphql variants: ${GRAPHQL_VARIANTS.join(', ')}`);
    const of = (name: string, kind: string, env: Record<string, string>): Target => {
      const r = graphqlRequest(v, kind === 'ours-memory' ? MEMORY_GRAPHQL_PATH : '/graphql', token);
      return { name, kind, data: 'memory', env, method: 'POST', path: r.path, headers: r.headers ?? {}, body: r.body };
    };
    return [...ours.map((s) => of(s ? `ours, ${s}` : 'ours', 'ours-memory', envOf(s))), of('Mercurius+jit', 'mercurius', {})];
  }
  if (caseName === 'rest') {
    const v = REST_VARIANTS.find((r) => r.id === (variant ?? 'by-id'));
    if (!v) throw new Error(`rest variants: ${REST_VARIANTS.map((r) => r.id).join(', ')}`);
    const headers = { accept: 'application/json', ...(v.bearer ? { authorization: `Bearer ${token}` } : {}) };
    const of = (name: string, kind: string, env: Record<string, string>): Target => ({
      name,
      kind,
      data: 'stub',
      env,
      method: 'GET',
      path: v.path,
      headers,
    });
    return [...ours.map((s) => of(s ? `ours, ${s}` : 'ours', 'ours-stub', envOf(s))), of('bare Fastify', 'fastify-bare', {})];
  }
  throw new Error('settings: graphql or rest');
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
      const env = {
        ...process.env,
        NODE_ENV: 'production',
        LOG_LEVEL: 'info',
        AUTH_JWT_SECRET: JWT_SECRET,
        SECRETS_KEY: JWT_SECRET,
        DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'bench-settings-')),
        DATABASE_URL: '',
        ...target.env,
      };
      const server = await startServer(target.name, tsx('scripts/bench/serve.ts', target.kind, target.data), env, pinning.server);
      running.push({ target, server, rps: [], cpuUs: [] });
    }
    const request = (r: (typeof running)[number], s: number) => ({
      url: `${r.server.url}${r.target.path}`,
      method: r.target.method,
      headers: r.target.headers,
      body: r.target.body,
      connections: 10,
      seconds: s,
    });
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
