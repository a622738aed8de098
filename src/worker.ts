/**
 * `npm run worker`: a delivery worker process of its own, beside any number of servers and other
 * workers on one PostgreSQL database (they share the queue through FOR UPDATE SKIP LOCKED and
 * leases). The embedded database belongs to the one server process that opened it, whose
 * in-process worker delivers there, so this refuses to start without DATABASE_URL=postgres://….
 * Migrations are applied as the server applies them, so a worker may start first. With METRICS_PORT
 * it serves /metrics there as the server does (src/ops/metrics-listener.ts): its own attempt counters
 * and latencies, its statements and pool, and the shared queue's gauges. It also runs the
 * background jobs every process runs: the sign-in state sweep, the SCIM activity sweep and the SAML
 * metadata refresh.
 */
import type { Dialect } from 'kysely';
import { pino } from 'pino';
import { resolveSecretsKey } from './auth/secret.ts';
import { SecretBox } from './auth/secret-box.ts';
import { ensurePortFree, fail, loadConfigOrExit, portMessage, stopOnSignals } from './process-entry.ts';
import { openDatabase } from './db/database.ts';
import { migrateToLatest } from './db/migrate.ts';
import { createProcessMetrics } from './ops/metrics.ts';
import { startMetricsListener } from './ops/metrics-listener.ts';
import { loggerOptions } from './logger-options.ts';
import { tracedDialect } from './ops/tracing/db-spans.ts';
import { startTracing } from './ops/tracing/tracing.ts';
import { webhookSpans } from './ops/tracing/webhook-spans.ts';
import { startDeliveryWorker } from './webhooks/delivery/delivery-worker.ts';
import { startSsoStateSweep } from './identity/sign-in/sso-state-sweep.ts';
import { startScimActivitySweep } from './identity/scim/scim-activity-sweep.ts';
import { metadataRefreshFor, startMetadataRefresh } from './identity/providers/metadata-refresh-job.ts';
import { sealPlainSecrets, unopenedSecretsWarning } from './webhooks/endpoint-secrets.ts';

const config = loadConfigOrExit();
if (config.database.kind !== 'postgres') {
  fail(
    'a separate webhook worker needs PostgreSQL (DATABASE_URL=postgres://…): the embedded database belongs to the server process, ' +
      'whose in-process worker delivers webhooks unless WEBHOOK_WORKER=off',
  );
}

// Before the database is touched, as main.ts does: a taken port should stop the start at once.
if (config.metrics) await ensurePortFree(config.metrics, 'METRICS_PORT');

const log = pino(loggerOptions(config));
if (config.webhookAllowPrivateTargets) {
  log.warn('WEBHOOK_ALLOW_PRIVATE_TARGETS=true: webhooks may be delivered to loopback addresses; never use this in production');
}
// Spans for each delivery attempt when OTEL_EXPORTER_OTLP_ENDPOINT is set (src/ops/tracing/).
const tracing = config.tracing ? await startTracing(config.tracing) : null;
const wrapDialect = tracing ? { wrapDialect: (dialect: Dialect) => tracedDialect(dialect, tracing) } : {};
const database = await openDatabase(config.database, wrapDialect).catch((error: Error) =>
  fail(`cannot open the database: ${error.message}`),
);
database.onConnectionError((error) => log.warn({ err: error }, 'database connection lost; the pool opens a new one'));
await migrateToLatest(database.db);
const secretBox = new SecretBox(resolveSecretsKey(config));
const secrets = await sealPlainSecrets(database.db, secretBox);
if (secrets.unopened.length) log.warn({ endpointIds: secrets.unopened }, unopenedSecretsWarning(secrets.unopened.length));
const metrics = createProcessMetrics(database);
// Listening before the worker claims anything: a port taken since the check above stops the start
// with the same one line, with no delivery in flight to abandon.
const scrapeAt = config.metrics;
const metricsListener = scrapeAt
  ? await startMetricsListener(metrics, scrapeAt).catch(async (error: NodeJS.ErrnoException) => {
      await database.close();
      return fail(portMessage(error, scrapeAt.port, 'METRICS_PORT'));
    })
  : null;
if (scrapeAt) log.info(scrapeAt, `webhook worker serving /metrics on ${scrapeAt.host}:${scrapeAt.port}`);
else log.info('METRICS_PORT is unset (or 0): this webhook worker serves no /metrics');
const aroundAttempt = tracing && config.tracing ? { aroundAttempt: webhookSpans(tracing, config.tracing) } : {};
const worker = await startDeliveryWorker({ config, database, log, metrics: metrics.webhooks, secretBox, ...aroundAttempt });
const ssoStateSweep = startSsoStateSweep(database.db, log);
const scimActivitySweep = startScimActivitySweep(database.db, log);
const metadataRefresh = startMetadataRefresh(metadataRefreshFor(database.db, secretBox, config), log, config.samlMetadataRefreshS);

stopOnSignals(async (signal) => {
  log.info({ signal, workerId: worker.id }, 'webhook worker stopping');
  await ssoStateSweep.stop();
  await scimActivitySweep.stop();
  await metadataRefresh.stop();
  await worker.stop();
  await metricsListener?.close();
  await database.close();
  await tracing?.close();
});
