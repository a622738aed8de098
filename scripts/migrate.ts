/** `npm run migrate`: applies pending migrations to the configured database and exits. */
import { ConfigError, loadConfig } from '../src/config.ts';
import { openDatabase } from '../src/db/database.ts';
import { migrateToLatest } from '../src/db/migrate.ts';

try {
  const config = loadConfig();
  const handle = await openDatabase(config.database);
  try {
    const applied = await migrateToLatest(handle.db);
    console.log(applied.length ? `applied: ${applied.join(', ')}` : 'database is up to date');
  } finally {
    await handle.close();
  }
} catch (error) {
  console.error(`error: ${error instanceof ConfigError ? `invalid configuration: ${error.message}` : (error as Error).message}`);
  process.exit(1);
}
