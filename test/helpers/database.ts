/**
 * Each test file gets its own database: in-memory PGlite, or, when TEST_DATABASE_URL names a
 * PostgreSQL server, a freshly created database on it (dropped at teardown).
 *
 * `createTestDatabase()` gives an empty database (the migrations then run from scratch on it);
 * `createTestDatabase({ migrated: true })`, which startServer uses, gives a copy of a template that
 * the migrations were run on once (decision 73): PGlite loads a dump of the template's data
 * directory instead of running initdb, PostgreSQL runs `create database … template …`. The template
 * is keyed by a hash of src/db/migrations (and the PGlite version), so editing a migration builds a
 * new one; the server still runs migrateToLatest over the copy, where it finds nothing to do.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { Test } from 'tap';
import type { DatabaseTarget } from '../../src/config.ts';
import { openDatabase, type DatabaseHandle } from '../../src/db/database.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { migrationsKey, migratedPgliteSnapshot } from '../../scripts/lib/pglite-snapshot.ts';

export const onPostgres = Boolean(process.env.TEST_DATABASE_URL);

async function withAdmin<T>(serverUrl: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

function databaseUrl(serverUrl: string, name: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * The migrated template database on the PostgreSQL server, created once per server and migration
 * set. Built under a temporary name and renamed, under an advisory lock, so a concurrent test file
 * either waits for it or finds it complete; a crashed build leaves no template behind.
 */
async function migratedPostgresTemplate(serverUrl: string): Promise<string> {
  const name = `schemaforge_template_${migrationsKey().slice(0, 16)}`;
  return withAdmin(serverUrl, async (admin) => {
    const exists = async () => (await admin.query('select 1 from pg_database where datname = $1', [name])).rowCount === 1;
    if (await exists()) return name;
    await admin.query(`select pg_advisory_lock(hashtext('schemaforge test template'))`);
    try {
      if (await exists()) return name;
      const building = `${name}_build_${randomBytes(4).toString('hex')}`;
      await admin.query(`create database ${building}`);
      try {
        const handle = await openDatabase({ kind: 'postgres', url: databaseUrl(serverUrl, building) });
        try {
          await migrateToLatest(handle.db);
        } finally {
          await handle.close();
        }
        await admin.query(`alter database ${building} rename to ${name}`);
      } catch (error) {
        await admin.query(`drop database if exists ${building} with (force)`);
        throw error;
      }
      return name;
    } finally {
      await admin.query(`select pg_advisory_unlock(hashtext('schemaforge test template'))`);
    }
  });
}

export async function createTestDatabase(
  options: { migrated?: boolean } = {},
): Promise<{ target: DatabaseTarget; drop: () => Promise<void> }> {
  const serverUrl = process.env.TEST_DATABASE_URL;
  if (!serverUrl) {
    const target: DatabaseTarget = options.migrated
      ? { kind: 'pglite-memory', snapshot: await migratedPgliteSnapshot() }
      : { kind: 'pglite-memory' };
    return { target, drop: async () => {} };
  }
  const template = options.migrated ? await migratedPostgresTemplate(serverUrl) : undefined;
  const name = `test_${randomBytes(6).toString('hex')}`;
  // FILE_COPY copies the template's files as they are: a fifth of the server's CPU of WAL_LOG, the
  // default since PostgreSQL 15, which writes every block through the WAL (0.06 s against 0.3 s).
  await withAdmin(serverUrl, (admin) =>
    admin.query(template ? `create database ${name} template ${template} strategy file_copy` : `create database ${name}`),
  );
  return {
    target: { kind: 'postgres', url: databaseUrl(serverUrl, name) },
    drop: () => withAdmin(serverUrl, async (admin) => void (await admin.query(`drop database if exists ${name} with (force)`))),
  };
}

/** A migrated database of the test's own (PGlite in memory, or one on TEST_DATABASE_URL), closed and dropped when `t` ends. */
export async function openTestDatabase(t: Test): Promise<DatabaseHandle> {
  const { target, drop } = await createTestDatabase({ migrated: true });
  const database = await openDatabase(target);
  t.teardown(async () => {
    await database.close();
    await drop();
  });
  return database;
}
