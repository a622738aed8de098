/**
 * Starts the real application on a loopback port over a fresh database (a copy of the migrated
 * template, see ./database.ts). Teardown closes the server and drops the database.
 *
 * `sharedServer` is the one to reach for: the tests of a file share one server per set of options,
 * each test starting on the database as migrated (./fresh-data.ts). `startServer` gives a test a
 * server of its own, for what cannot be shared: routes added before it listens, a mail sink or a
 * webhook notifier of the test's own, a server the test closes or whose database it breaks.
 */
import tap, { type Test } from 'tap';
import { signToken } from '../../src/auth/jwt.ts';
import type { App } from '../../src/app.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import type { DatabaseHandle } from '../../src/db/database.ts';
import { createServer, type Server } from '../../src/server.ts';
import type { MailTransport } from '../../src/identity/domains/mail-transport.ts';
import type { EndpointNotifier } from '../../src/webhooks/webhook-observer.ts';
import { createTestDatabase } from './database.ts';
import { snapshotSeedData } from './fresh-data.ts';
import { ContractClient } from './contract.ts';
import { typedClients, type TypedClients } from './typed-client.ts';
import { freePort } from '../../scripts/lib/free-port.ts';
import { checkResponseSerialization } from './serialization-check.ts';

export const TEST_JWT_SECRET = 'test-secret-that-is-at-least-32-characters-long';

export interface TestServer {
  baseUrl: string;
  app: App;
  config: Config;
  database: DatabaseHandle;
  /** A client whose every response is checked against the OpenAPI documents. */
  api: ContractClient;
  /** The generated typed clients (rest-v1, rest-v2, posts, ops, admin), each response contract-checked. */
  v1: TypedClients['v1'];
  v2: TypedClients['v2'];
  posts: TypedClients['posts'];
  ops: TypedClients['ops'];
  admin: TypedClients['admin'];
  webhooks: TypedClients['webhooks'];
  token(sub: string, roles?: string[]): Promise<string>;
  /** The port of the separate /metrics listener (METRICS_PORT); null without one. */
  metricsPort: number | null;
  /** The span exporter (OTEL_EXPORTER_OTLP_ENDPOINT); null when tracing is not configured. */
  tracing: Server['tracing'];
}

export interface StartOptions {
  env?: Record<string, string>;
  /** Runs before the server listens: tests may add routes (e.g. one that throws). */
  configure?: (app: App) => void | Promise<void>;
  /** Extra CA the webhook transport trusts (the receivers' test CA, test/helpers/webhook-receiver.ts). */
  webhookCa?: string;
  /** Replaces the log line that tells of a disabled webhook endpoint. */
  webhookNotifier?: EndpointNotifier;
  /**
   * Listen on a port chosen before start, with BASE_URL naming it: single sign-on needs the server
   * to know its own address (assertion consumer and redirect URLs) before it listens.
   */
  baseUrlIsListenAddress?: boolean;
  /** Receives the mail the server sends (domain verification codes). */
  mail?: MailTransport;
}

export async function startServer(t: Test, options: StartOptions = {}): Promise<TestServer> {
  const fixedPort = options.baseUrlIsListenAddress ? await freePort() : 0;
  const env = { ...(fixedPort ? { BASE_URL: `http://127.0.0.1:${fixedPort}` } : {}), ...options.env };
  const { target, drop } = await createTestDatabase({ migrated: true });
  const config: Config = {
    ...loadConfig({
      NODE_ENV: 'test',
      AUTH_JWT_SECRET: TEST_JWT_SECRET,
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
      // The delivery worker's claims would show in the statement counts other areas' tests make:
      // only the webhook tests, which ask for it, run one.
      WEBHOOK_WORKER: 'off',
      ...env,
    }),
    database: target,
  };
  const server = await createServer(config, {
    ...(options.webhookCa ? { webhookCa: options.webhookCa } : {}),
    ...(options.webhookNotifier ? { webhookNotifier: options.webhookNotifier } : {}),
    ...(options.mail ? { mail: options.mail } : {}),
  });
  const { app, database } = server;
  checkResponseSerialization(app.http);
  await options.configure?.(app);
  await app.http.listen({ port: fixedPort, host: '127.0.0.1' });
  const address = app.http.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const baseUrl = `http://127.0.0.1:${port}`;
  t.teardown(async () => {
    await server.close();
    await drop();
  });
  return {
    baseUrl,
    app,
    config,
    database,
    api: new ContractClient(baseUrl),
    ...typedClients(baseUrl),
    token: (sub, roles = []) => signToken(TEST_JWT_SECRET, { sub, roles }),
    metricsPort: server.metricsListener?.port ?? null,
    tracing: server.tracing,
  };
}

/**
 * A second application on `first`'s database (PostgreSQL only: an in-memory PGlite belongs to one
 * process handle), listening on its own port, as a second instance behind a load balancer would.
 * Closed before the first one's teardown drops the database.
 */
export async function startSecondInstance(t: Test, first: TestServer): Promise<Pick<TestServer, 'baseUrl' | 'app' | 'database'>> {
  if (first.config.database.kind !== 'postgres') throw new Error('a second instance needs PostgreSQL (TEST_DATABASE_URL)');
  const server = await createServer(first.config);
  const { app, database } = server;
  checkResponseSerialization(app.http);
  await app.http.listen({ port: 0, host: '127.0.0.1' });
  const address = app.http.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  t.teardown(() => server.close());
  return { baseUrl: `http://127.0.0.1:${port}`, app, database };
}

type SharedStartOptions = Pick<StartOptions, 'env' | 'baseUrlIsListenAddress' | 'webhookCa'>;

const shared = new Map<string, Promise<{ server: TestServer; reset: () => Promise<void> }>>();

/**
 * The server the tests of this file share for these options: started on the first call, closed when
 * the file ends. Every call empties the database back to what the migrations left, so each test
 * begins as it would on a server of its own; call it once at the start of each top-level test.
 */
export async function sharedServer(options: SharedStartOptions = {}): Promise<TestServer> {
  const key = JSON.stringify(options);
  let entry = shared.get(key);
  if (!entry) {
    entry = startServer(tap, options).then(async (server) => ({ server, reset: await snapshotSeedData(server.database) }));
    shared.set(key, entry);
    // The file ends with its root teardowns (at the process's end, or sooner when files share a
    // process: scripts/test-suite/batch.ts): the next file starts a server of its own.
    tap.teardown(() => void shared.delete(key));
  }
  const { server, reset } = await entry;
  await reset();
  return server;
}
