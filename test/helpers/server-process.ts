/**
 * The server as an operator runs it: a process of its own, started by `npm start` (signal forwarding
 * through npm included) or by `node dist/src/main.js` (when the test needs the server's own process id),
 * over loopback. The test runner builds dist/ before any file starts; `ensureDistBuilt` makes a file
 * run on its own safe too (it does nothing when dist/ is current). `migratedDataFolder` gives a server
 * a data folder whose database is already made, where making one is not what a test is about.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import type { Test } from 'tap';
import { freePort } from '../../scripts/lib/free-port.ts';
import { migratedPgliteSnapshot, snapshotKey } from '../../scripts/lib/pglite-snapshot.ts';

export const root = path.resolve(import.meta.dirname, '../..');

export function ensureDistBuilt(): void {
  execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: root, stdio: 'ignore' });
}

/**
 * V8 flags of the server processes the tests start with `node`: WebAssembly compiled by the baseline
 * compiler only, as the runner runs the test files (scripts/test-suite/run-file.ts, docs/decisions.md):
 * a test's server runs PGlite for seconds, too short for the optimizing tier to pay for compiling its
 * module, which cost more than a quarter of a start's CPU. `npm start` (via 'npm') runs as it is.
 */
export const SERVER_V8_FLAGS = ['--liftoff-only'];

/**
 * A new data folder (DATA_DIR) whose embedded database exists and is migrated, removed at the test's
 * end: a copy of a folder made once from the migrated snapshot (scripts/lib/pglite-snapshot.ts) and
 * kept beside it in node_modules/.cache/schemaforge/. Creating a PGlite database costs a start about
 * ten CPU-seconds (in memory too: `DATABASE_URL=memory:` creates one each time); copying a folder,
 * nothing. For tests where the database's creation is not what is tested (lifecycle.test.ts tests
 * it); the server still migrates whatever the copy lacks.
 */
export async function migratedDataFolder(t: Test): Promise<string> {
  const template = await migratedTemplate();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'schemaforge-data-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  fs.cpSync(template, path.join(dir, 'pglite'), { recursive: true });
  return dir;
}

async function migratedTemplate(): Promise<string> {
  const template = path.join(root, 'node_modules/.cache/schemaforge', `pglite-folder-${snapshotKey()}`);
  if (fs.existsSync(template)) return template;
  // Made under a name of its own and renamed into place, so that files creating it at once never
  // copy a half-made one.
  const placed = `${template}.${process.pid}`;
  const pglite = await PGlite.create(placed, { loadDataDir: await migratedPgliteSnapshot() });
  await pglite.close();
  try {
    fs.renameSync(placed, template);
  } catch {
    // Another file placed it first.
    fs.rmSync(placed, { recursive: true, force: true });
  }
  return template;
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
    options.via === 'node'
      ? [process.execPath, [...SERVER_V8_FLAGS, '--enable-source-maps', 'dist/src/main.js']]
      : ['npm', ['start', '--silent']];
  const child = spawn(command, args, { cwd: root, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  let stdout = '';
  child.stderr.on('data', (d) => (stderr += d));
  child.stdout.on('data', (d) => (stdout += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const base = `http://127.0.0.1:${port}`;
  const started: ServerProcess = { child, base, port, exited, stdout: () => stdout, stderr: () => stderr };
  if (options.noWait) return started;
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited early: ${stderr}`);
    try {
      if ((await fetch(`${base}/readyz`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`server not ready within 120 s: ${stderr}`);
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
