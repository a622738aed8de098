/**
 * What every benchmark module starts from: the full application over a migrated database, configured
 * as in production but silent, on in-memory PGlite unless DATABASE_URL names a PostgreSQL server.
 * (The leading `_` keeps scripts/bench.ts from running this file as a benchmark.)
 */
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { App } from '../../src/app.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import type { DatabaseHandle } from '../../src/db/database.ts';
import { createServer } from '../../src/server.ts';

export interface BenchApp extends App {
  config: Config;
  database: DatabaseHandle;
}

export async function startBenchApp(overrides: Partial<Config> = {}): Promise<BenchApp> {
  const env = loadConfig();
  const config: Config = {
    ...env,
    // A throwaway secret rather than one written under DATA_DIR.
    authJwtSecret: env.authJwtSecret ?? randomBytes(32).toString('hex'),
    nodeEnv: 'production',
    logLevel: 'silent',
    database: env.database.kind === 'postgres' ? env.database : { kind: 'pglite-memory' },
    ...overrides,
  };
  const { app, database } = await createServer(config);
  return { ...app, config, database };
}

/** Listens on a free loopback port and returns the base URL. */
export async function listen(app: FastifyInstance): Promise<string> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as { port: number };
  return `http://127.0.0.1:${port}`;
}
