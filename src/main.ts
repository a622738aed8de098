/**
 * Process entry: read config, open and migrate the database, serve HTTP, and shut down cleanly on
 * SIGTERM/SIGINT (in-flight requests finish, then the database closes so PGlite flushes to disk).
 */
import { UnusableSecretFileError } from './auth/secret.ts';
import { MissingHandlersError } from './http/operation-coverage.ts';
import { ensurePortFree, fail, loadConfigOrExit, portMessage, stopOnSignals } from './process-entry.ts';
import { createServer, DatabaseStartError, type Server } from './server.ts';

const config = loadConfigOrExit();
await ensurePortFree(config, 'PORT');
if (config.metrics) await ensurePortFree(config.metrics, 'METRICS_PORT');

let server: Server;
try {
  server = await createServer(config);
} catch (error) {
  if (error instanceof DatabaseStartError || error instanceof UnusableSecretFileError) fail(error.message);
  throw error;
}

const { http } = server.app;
try {
  await http.listen({ port: config.port, host: config.host });
} catch (error) {
  await server.close().catch(() => undefined);
  // Fastify runs the onReady hooks in listen: an operation without a handler refuses the start there.
  if (error instanceof MissingHandlersError) fail(error.message);
  fail(portMessage(error as NodeJS.ErrnoException, config.port, 'PORT'));
}
// Where to go next, as the first thing a new user reads: the API, its reference and the explorer.
const urls = {
  api: config.baseUrl,
  graphql: `${config.baseUrl}/graphql`,
  ...(config.docs ? { docs: `${config.baseUrl}/docs` } : {}),
  ...(config.graphiql ? { graphiql: `${config.baseUrl}/graphiql` } : {}),
  openapi: `${config.baseUrl}/openapi`,
};
http.log.info({ baseUrl: config.baseUrl, database: config.database.kind, urls }, `server started: ${Object.values(urls).join(' ')}`);

/** How long clients get to leave their kept-alive connections before the idle ones are shut. */
const DRAIN_MS = 500;

/** Refuse new requests cleanly for a moment while in-flight ones finish (skipped when nobody is connected). */
async function drain(http: Server['app']['http']): Promise<void> {
  const open = await new Promise<number>((resolve) => http.server.getConnections((error, count) => resolve(error ? 1 : count)));
  if (open === 0) return;
  http.beginDraining();
  await new Promise((resolve) => setTimeout(resolve, DRAIN_MS));
}

stopOnSignals(async (signal) => {
  http.log.info({ signal }, 'shutting down');
  await drain(http);
  await server.close();
});
