/**
 * Our application on the stand-in servers of scripts/bench/serve.ts, built by the one wiring of
 * src/server.ts (the one src/main.ts and the tests use) over the database handle the bench opened.
 */
import type { CredentialStore } from '../../src/auth/credentials.ts';
import { loadConfig } from '../../src/config.ts';
import type { DatabaseHandle } from '../../src/db/database.ts';
import { buildServerApp } from '../../src/server.ts';

export async function buildOurs(database: DatabaseHandle, credentialStore?: CredentialStore) {
  const config = loadConfig();
  const app = await buildServerApp(config, database, credentialStore ? { credentialStore } : {});
  return { ...app, config };
}
