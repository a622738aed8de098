/**
 * `npm run worker`: a delivery worker process of its own, beside any number of servers and other
 * workers on one PostgreSQL database (they share the queue through FOR UPDATE SKIP LOCKED and
 * leases). The embedded database belongs to the one server process that opened it, whose
 * in-process worker delivers there, so this refuses to start without DATABASE_URL=postgres://….
 * Migrations are applied as the server applies them, so a worker may start first.
 */
import { pino } from 'pino';
import { resolveSecretsKey } from './auth/secret.ts';
import { SecretBox } from './auth/secret-box.ts';
import { fail, loadConfigOrExit, stopOnSignals } from './process-entry.ts';
import { openDatabase } from './db/database.ts';
import { migrateToLatest } from './db/migrate.ts';
import { startDeliveryWorker } from './webhooks/delivery/delivery-worker.ts';
import { sealPlainSecrets } from './webhooks/endpoint-secrets.ts';

const config = loadConfigOrExit();
if (config.database.kind !== 'postgres') {
  fail(
    'a separate webhook worker needs PostgreSQL (DATABASE_URL=postgres://…): the embedded database belongs to the server process, ' +
      'whose in-process worker delivers webhooks unless WEBHOOK_WORKER=off',
  );
}

const log = pino({ level: config.logLevel });
if (config.webhookAllowPrivateTargets) {
  log.warn('WEBHOOK_ALLOW_PRIVATE_TARGETS=true: webhooks may be delivered to loopback addresses; never use this in production');
}
const database = await openDatabase(config.database).catch((error: Error) => fail(`cannot open the database: ${error.message}`));
database.onConnectionError((error) => log.warn({ err: error }, 'database connection lost; the pool opens a new one'));
await migrateToLatest(database.db);
const secretBox = new SecretBox(resolveSecretsKey(config));
await sealPlainSecrets(database.db, secretBox);
const worker = await startDeliveryWorker({ config, database, log, secretBox });

stopOnSignals(async (signal) => {
  log.info({ signal, workerId: worker.id }, 'webhook worker stopping');
  await worker.stop();
  await database.close();
});
