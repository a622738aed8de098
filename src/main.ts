/**
 * Process entry: read config, open and migrate the database, serve HTTP, and shut down cleanly on
 * SIGTERM/SIGINT (in-flight requests finish, then the database closes so PGlite flushes to disk).
 */
import { createAuthenticator } from './auth/authenticate.ts';
import { resolveJwtSecret } from './auth/secret.ts';
import { buildApp } from './app.ts';
import { ConfigError, loadConfig, type Config } from './config.ts';
import { openDatabase, type DatabaseHandle } from './db/database.ts';
import { migrateToLatest } from './db/migrate.ts';
import { deriveCursorSecret } from './http/cursor.ts';

function fail(message: string): never {
  process.stderr.write(`error: ${message}\n`);
  process.exit(1);
}

let config: Config;
try {
  config = loadConfig();
} catch (error) {
  if (error instanceof ConfigError) fail(`invalid configuration: ${error.message}`);
  throw error;
}

let database: DatabaseHandle;
try {
  database = await openDatabase(config.database);
  await migrateToLatest(database.db);
} catch (error) {
  fail(`cannot open the database (${config.database.kind}): ${(error as Error).message}`);
}

const jwtSecret = resolveJwtSecret(config);
const { http } = await buildApp({
  config,
  database,
  authenticate: createAuthenticator(jwtSecret),
  cursorSecret: deriveCursorSecret(jwtSecret),
  jwtSecret,
});
await http.listen({ port: config.port, host: config.host });
http.log.info({ baseUrl: config.baseUrl, database: config.database.kind }, 'server started');

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  http.log.info({ signal }, 'shutting down');
  const timer = setTimeout(() => fail('shutdown took longer than 20 s'), 20_000);
  timer.unref();
  try {
    await http.close();
    await database.close();
    process.exit(0);
  } catch (error) {
    fail(`shutdown failed: ${(error as Error).message}`);
  }
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
