/**
 * `npm run worker` as an operator runs it: a process of its own on the test server's PostgreSQL
 * database (the embedded one belongs to one process), the compiled `dist/src/worker.js` that the
 * script runs (the test runner builds dist/ before any file starts). The receivers' test CA reaches
 * it through NODE_EXTRA_CA_CERTS, as it would reach a deployed worker. Killed at the test's teardown.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { Test } from 'tap';
import { ensureDistBuilt, SERVER_V8_FLAGS } from '../helpers/server-process.ts';
import type { TestServer } from '../helpers/server.ts';

const root = path.resolve(import.meta.dirname, '../..');

interface WorkerProcess {
  child: ChildProcess;
  /** What it has written to stdout so far (its log lines, at LOG_LEVEL). */
  stdout(): string;
}

export function startWorkerProcess(t: Test, server: TestServer, caFile: string, env: Record<string, string> = {}): WorkerProcess {
  const database = server.config.database;
  if (database.kind !== 'postgres') throw new Error('a worker process needs PostgreSQL (TEST_DATABASE_URL)');
  ensureDistBuilt();
  const child = spawn(process.execPath, [...SERVER_V8_FLAGS, '--enable-source-maps', 'dist/src/worker.js'], {
    cwd: root,
    env: {
      ...process.env,
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      DATABASE_URL: database.url,
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      NODE_EXTRA_CA_CERTS: caFile,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  // Drained so that a chatty worker never blocks on a full pipe.
  child.stderr.resume();
  t.teardown(() => void child.kill('SIGKILL'));
  return { child, stdout: () => stdout };
}
