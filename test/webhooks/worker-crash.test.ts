// test-suite: postgres-only (worker processes need a database server; the file skips on PGlite)
/**
 * A worker process killed with SIGKILL in the middle of deliveries loses nothing: another worker
 * process takes its leased deliveries over once their leases end, and every committed event
 * reaches the receiver at least once. PostgreSQL only: separate worker processes need a database
 * server (the embedded one belongs to one process); ./worker-process.ts starts them.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import t from 'tap';
import { onPostgres } from '../helpers/database.ts';
import { ensureDistBuilt, SERVER_V8_FLAGS } from '../helpers/server-process.ts';
import { startReceiver, writeTestCaFile } from '../helpers/webhook-receiver.ts';
import { createProduct } from '../catalog/fixtures.ts';
import { deliveriesOf, eventually, registerEndpoint, startWebhookServer } from './webhook-fixtures.ts';
import { startWorkerProcess } from './worker-process.ts';

const root = path.resolve(import.meta.dirname, '../..');
const EVENTS = 30;

t.test(
  'SIGKILL in the middle of deliveries: another worker delivers everything',
  { skip: onPostgres ? false : 'needs PostgreSQL (TEST_DATABASE_URL)' },
  async (t) => {
    const server = await startWebhookServer(t, { WEBHOOK_WORKER: 'off' });
    const caFile = await writeTestCaFile(t);
    const receiver = await startReceiver(t, { respond: () => ({ status: 200, delayMs: 150 }) });
    const endpoint = await registerEndpoint(server, `${receiver.origin}/crash`, { events: ['product.created'] });
    for (let i = 0; i < EVENTS; i++) await createProduct(server);
    const committed = new Set(
      (await server.database.db.selectFrom('webhook_events').select('id').where('type', '=', 'product.created').execute()).map((e) => e.id),
    );
    t.equal(committed.size, EVENTS);

    const startWorker = () =>
      startWorkerProcess(t, server, caFile, { WEBHOOK_CONCURRENCY: '4', WEBHOOK_TIMEOUT_MS: '1000', WEBHOOK_RETRY_DELAYS_MS: '100' }).child;

    const first = startWorker();
    await receiver.waitFor(8, 30_000);
    first.kill('SIGKILL');
    await once(first, 'exit');
    const atKill = new Set(receiver.requests.map((r) => String(r.headers['x-webhook-id']))).size;
    t.ok(atKill < EVENTS, `killed in the middle: ${atKill} of ${EVENTS} events had arrived`);
    const inFlight = (await deliveriesOf(server, endpoint.id)).filter((d) => d.state === 'pending' && d.attempts > 0);
    t.ok(inFlight.length > 0, `the killed worker left ${inFlight.length} leased deliveries behind`);

    startWorker();
    await eventually(
      async () => (new Set(receiver.requests.map((r) => String(r.headers['x-webhook-id']))).size === EVENTS ? true : undefined),
      40_000,
      'every event at the receiver',
    );
    const arrived = new Set(receiver.requests.map((r) => String(r.headers['x-webhook-id'])));
    t.same(
      [...committed].filter((id) => !arrived.has(id)),
      [],
      'no committed event was lost',
    );
    t.ok(receiver.requests.length >= EVENTS, `at least once: ${receiver.requests.length} requests for ${EVENTS} events`);
    await eventually(
      async () => ((await deliveriesOf(server, endpoint.id)).every((d) => d.state === 'delivered') ? true : undefined),
      10_000,
      'all delivered',
    );
  },
);

t.test(
  'SIGKILL after the receiver answered but before the success was written: the delivery is sent again, not lost',
  { skip: onPostgres ? false : 'needs PostgreSQL (TEST_DATABASE_URL)' },
  async (t) => {
    const server = await startWebhookServer(t, { WEBHOOK_WORKER: 'off' });
    const caFile = await writeTestCaFile(t);
    const receiver = await startReceiver(t, { respond: () => ({ status: 204 }) });
    const endpoint = await registerEndpoint(server, `${receiver.origin}/flush`, { events: ['product.created'] });
    await createProduct(server);
    // A minute between a success and its write: the kill below lands inside that window.
    const env = { WEBHOOK_CONCURRENCY: '4', WEBHOOK_TIMEOUT_MS: '1000', WEBHOOK_FLUSH_MS: '60000' };
    const first = startWorkerProcess(t, server, caFile, env).child;
    await receiver.waitFor(1, 30_000);
    // The answer is in, and its record waits for the flush: the delivery is still leased, not delivered.
    await new Promise((r) => setTimeout(r, 300));
    const [leased] = await deliveriesOf(server, endpoint.id);
    t.match(leased, { state: 'pending', attempts: 1 }, 'answered but not yet written');
    first.kill('SIGKILL');
    await once(first, 'exit');

    startWorkerProcess(t, server, caFile, { ...env, WEBHOOK_FLUSH_MS: '5' });
    // The lease (2 × 1 s + 5 s) runs out, and the next worker sends it again.
    await receiver.waitFor(2, 30_000);
    t.equal(new Set(receiver.requests.map((r) => String(r.headers['x-webhook-id']))).size, 1, 'the same event, sent a second time');
    const delivered = await eventually(
      async () => {
        const [d] = await deliveriesOf(server, endpoint.id);
        return d?.state === 'delivered' ? d : undefined;
      },
      10_000,
      'the second attempt recorded',
    );
    t.equal(delivered.attempts, 2, 'two attempts: the one whose record was lost, and the one recorded');
  },
);

t.test('npm run worker refuses the embedded database with one clear line', async (t) => {
  ensureDistBuilt();
  const child = spawn(process.execPath, [...SERVER_V8_FLAGS, 'dist/src/worker.js'], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: 'memory:', NODE_ENV: 'test', LOG_LEVEL: 'silent' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number];
  t.equal(code, 1);
  t.match(stderr.trim(), /^error: a separate webhook worker needs PostgreSQL \(DATABASE_URL=postgres:\/\/…\).*WEBHOOK_WORKER=off$/);
});
