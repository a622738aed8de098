/**
 * The database of a server process a test starts where the engine is not what it tests (its logs,
 * its refusals, its secrets): on the suite's PostgreSQL run a migrated database of the test's own
 * there, otherwise a copy of a migrated embedded data folder. A start on PostgreSQL costs about a
 * third of the CPU of one that opens PGlite, and `npm test` runs such files on PostgreSQL only
 * (their `once` marker); the long tier runs them on PGlite, so both stay covered.
 *
 * A module of its own: importing it makes a file reach test/helpers/database.ts, which decides the
 * engines it runs on (scripts/test-suite/selection.ts), and not every server-process test should.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Test } from 'tap';
import { createTestDatabase, onPostgres } from './database.ts';
import { migratedDataFolder } from './server-process.ts';

/**
 * Environment for startServerProcess: DATABASE_URL, and DATA_DIR (the embedded database's folder,
 * or where a development server keeps its generated secrets). On PostgreSQL the secrets a production
 * start requires there are set too.
 */
export async function serverDatabaseEnv(t: Test): Promise<Record<string, string>> {
  if (!onPostgres) return { DATA_DIR: await migratedDataFolder(t), DATABASE_URL: '' };
  const { target, drop } = await createTestDatabase({ migrated: true });
  t.teardown(drop);
  if (target.kind !== 'postgres') throw new Error('TEST_DATABASE_URL names a PostgreSQL server');
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'schemaforge-data-'));
  t.teardown(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  return {
    DATA_DIR: dataDir,
    DATABASE_URL: target.url,
    AUTH_JWT_SECRET: randomBytes(32).toString('base64url'),
    SECRETS_KEY: randomBytes(32).toString('base64url'),
  };
}
