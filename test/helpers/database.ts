/**
 * Each test file gets its own empty database: in-memory PGlite, or, when TEST_DATABASE_URL names a
 * PostgreSQL server, a freshly created database on it (dropped at teardown).
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { DatabaseTarget } from '../../src/config.ts';

export const onPostgres = Boolean(process.env.TEST_DATABASE_URL);

export async function createTestDatabase(): Promise<{ target: DatabaseTarget; drop: () => Promise<void> }> {
  const serverUrl = process.env.TEST_DATABASE_URL;
  if (!serverUrl) return { target: { kind: 'pglite-memory' }, drop: async () => {} };
  const name = `test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    target: { kind: 'postgres', url: url.toString() },
    drop: async () => {
      const c = new pg.Client({ connectionString: serverUrl });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}
