/**
 * The one wiring of a server process, shared by src/main.ts, the tests (test/helpers/server.ts) and
 * the benchmarks: open and migrate the database, resolve the JWT secret, derive the cursor key and
 * build the application (which creates the authenticator over its services). It does not listen.
 */
import { inspect } from 'node:util';
import { resolveJwtSecret, resolveSecretsKey } from './auth/secret.ts';
import { SecretBox } from './auth/secret-box.ts';
import type { MailTransport } from './identity/domains/mail-transport.ts';
import { buildApp, type App, type AppDependencies } from './app.ts';
import type { Config } from './config.ts';
import { openDatabase, type DatabaseHandle } from './db/database.ts';
import { migrateToLatest } from './db/migrate.ts';
import { deriveCursorSecret } from './http/cursor.ts';
import { startMetricsListener, type MetricsListener } from './ops/metrics-listener.ts';
import { tracedDialect } from './ops/tracing/db-spans.ts';
import { startTracing, type Tracing } from './ops/tracing/tracing.ts';
import { webhookSpans } from './ops/tracing/webhook-spans.ts';
import { startDeliveryWorker, type DeliveryWorker } from './webhooks/delivery/delivery-worker.ts';
import { startSsoStateSweep } from './identity/sign-in/sso-state-sweep.ts';
import { startScimActivitySweep } from './identity/scim/scim-activity-sweep.ts';
import { metadataRefreshFor, startMetadataRefresh } from './identity/providers/metadata-refresh-job.ts';
import { sealPlainSecrets, unopenedSecretsWarning } from './webhooks/endpoint-secrets.ts';
import type { EndpointNotifier } from './webhooks/webhook-observer.ts';

export interface Server {
  app: App;
  database: DatabaseHandle;
  /** The in-process webhook delivery worker; null with WEBHOOK_WORKER=off. */
  worker: DeliveryWorker | null;
  /** The separate /metrics listener (METRICS_PORT); null when not configured. */
  metricsListener: MetricsListener | null;
  /** The span exporter (OTEL_EXPORTER_OTLP_ENDPOINT); null when tracing is not configured. */
  tracing: Tracing | null;
  /**
   * Stops the delivery worker and the HTTP server (in-flight work finishes), closes the database,
   * then sends the spans not sent yet.
   */
  close(): Promise<void>;
}

/** The database could not be opened or migrated (main.ts reports it as such). */
export class DatabaseStartError extends Error {}

async function openMigrated(config: Config, tracing: Tracing | null): Promise<DatabaseHandle> {
  let database: DatabaseHandle | undefined;
  try {
    database = await openDatabase(config.database, tracing ? { wrapDialect: (dialect) => tracedDialect(dialect, tracing) } : {});
    await migrateToLatest(database.db);
    return database;
  } catch (error) {
    await database?.close().catch(() => undefined);
    // Not every failure is an Error with a message (the embedded database's WebAssembly can throw
    // other values): say what was thrown rather than "undefined".
    const reason = error instanceof Error && error.message ? error.message : inspect(error, { depth: 2, breakLength: Infinity });
    throw new DatabaseStartError(`cannot open the database (${config.database.kind}): ${reason}`, { cause: error });
  }
}

/**
 * Builds the application over a database the caller opened (the benchmarks' stubbed repository);
 * createServer is the same wiring over the database the config names.
 */
export async function buildServerApp(
  config: Config,
  database: DatabaseHandle,
  options: Pick<AppDependencies, 'credentialStore' | 'mail' | 'tracing'> = {},
): Promise<App> {
  const jwtSecret = resolveJwtSecret(config);
  return buildApp({
    ...options,
    config,
    database,
    cursorSecret: deriveCursorSecret(jwtSecret),
    jwtSecret,
    secretsKey: resolveSecretsKey(config),
  });
}

interface ServerOptions {
  /** Extra CAs the webhook transport trusts (tests whose receivers use a test CA in this process). */
  webhookCa?: string;
  /** Who is told that an endpoint was disabled; a warning in the log by default. */
  webhookNotifier?: EndpointNotifier;
  /** How domain verification codes are mailed; to the log by default. */
  mail?: MailTransport;
}

export async function createServer(config: Config, options: ServerOptions = {}): Promise<Server> {
  const tracing = config.tracing ? await startTracing(config.tracing) : null;
  let database: DatabaseHandle;
  try {
    database = await openMigrated(config, tracing);
  } catch (error) {
    await tracing?.close().catch(() => undefined);
    throw error;
  }
  try {
    const secretBox = new SecretBox(resolveSecretsKey(config));
    const secrets = await sealPlainSecrets(database.db, secretBox);
    const app = await buildServerApp(config, database, { ...(options.mail ? { mail: options.mail } : {}), tracing });
    if (secrets.unopened.length) app.http.log.warn({ endpointIds: secrets.unopened }, unopenedSecretsWarning(secrets.unopened.length));
    if (config.webhookAllowPrivateTargets) {
      app.http.log.warn(
        'WEBHOOK_ALLOW_PRIVATE_TARGETS=true: webhooks may be delivered to loopback addresses; never use this in production',
      );
    }
    const worker = config.webhookWorker
      ? await startDeliveryWorker({
          config,
          database,
          log: app.http.log,
          metrics: app.metrics.webhooks,
          secretBox,
          ...(options.webhookCa ? { ca: options.webhookCa } : {}),
          ...(options.webhookNotifier ? { notifier: options.webhookNotifier } : {}),
          ...(tracing && config.tracing ? { aroundAttempt: webhookSpans(tracing, config.tracing) } : {}),
        })
      : null;
    const metricsListener = config.metrics ? await startMetricsListener(app.metrics, config.metrics) : null;
    const ssoStateSweep = startSsoStateSweep(database.db, app.http.log);
    const scimActivitySweep = startScimActivitySweep(database.db, app.http.log);
    const metadataRefresh = startMetadataRefresh(
      metadataRefreshFor(database.db, secretBox, config),
      app.http.log,
      config.samlMetadataRefreshS,
    );
    return {
      app,
      database,
      worker,
      metricsListener,
      tracing,
      close: async () => {
        await ssoStateSweep.stop();
        await scimActivitySweep.stop();
        await metadataRefresh.stop();
        await worker?.stop();
        await metricsListener?.close();
        await app.http.close();
        await database.close();
        await tracing?.close();
      },
    };
  } catch (error) {
    await database.close();
    await tracing?.close().catch(() => undefined);
    throw error;
  }
}
