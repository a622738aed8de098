/**
 * The server as an operator runs it: a process of its own, started by `npm start` (signal forwarding
 * through npm included) or by `node dist/src/main.js` (when the test needs the server's own process id),
 * over loopback. The test runner builds dist/ before any file starts; `ensureDistBuilt` makes a file
 * run on its own safe too (it does nothing when dist/ is current).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { freePort } from '../../scripts/lib/free-port.ts';

export const root = path.resolve(import.meta.dirname, '../..');

export function ensureDistBuilt(): void {
  execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: root, stdio: 'ignore' });
}

export interface ServerProcess {
  child: ChildProcess;
  base: string;
  port: number;
  exited: Promise<number | null>;
  stdout(): string;
  stderr(): string;
}

interface StartOptions {
  /** Added to the test's environment; NODE_ENV '' means unset, as an operator who sets nothing has it. */
  env: Record<string, string>;
  /** `npm` runs `npm start --silent`; `node` runs dist/src/main.js directly (child.pid is the server's). */
  via?: 'npm' | 'node';
  /** Resolve as soon as the process is spawned, without waiting for /readyz. */
  noWait?: boolean;
  port?: number;
}

export async function startServerProcess(options: StartOptions): Promise<ServerProcess> {
  const port = options.port ?? (await freePort());
  const childEnv: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'development',
    LOG_LEVEL: 'info',
    // The tests read the log as a collector does, one JSON object a line (pretty is development's default).
    LOG_FORMAT: 'json',
    ...options.env,
    PORT: String(port),
    HOST: '127.0.0.1',
  };
  if (childEnv.NODE_ENV === '') delete childEnv.NODE_ENV;
  const [command, args] =
    options.via === 'node' ? [process.execPath, ['--enable-source-maps', 'dist/src/main.js']] : ['npm', ['start', '--silent']];
  const child = spawn(command, args, { cwd: root, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  let stdout = '';
  child.stderr.on('data', (d) => (stderr += d));
  child.stdout.on('data', (d) => (stdout += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const base = `http://127.0.0.1:${port}`;
  const started: ServerProcess = { child, base, port, exited, stdout: () => stdout, stderr: () => stderr };
  if (options.noWait) return started;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited early: ${stderr}`);
    try {
      if ((await fetch(`${base}/readyz`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`server not ready within 60 s: ${stderr}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return started;
}

export async function graphqlAt(base: string, query: string): Promise<{ status: number; body: any }> {
  const r = await fetch(`${base}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query }),
  });
  return { status: r.status, body: await r.json() };
}
