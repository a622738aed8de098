/**
 * The webhook bench's peer (scripts/bench/webhooks.ts): a bare graphile-worker queue, in a Node
 * process of its own, delivering the same signed POSTs as ours. One job per delivery, its payload
 * what the POST needs: `{ url, body, secret, eventId }`. The task signs at send time as ours does
 * (src/webhooks/delivery/signed-request.ts: the same `x-webhook-*` headers, the HMAC-SHA256 of
 * `<timestamp>.<body>` through src/webhooks/signature.ts's pure `signatureHeader`) and POSTs over
 * a keep-alive https.Agent with ours' per-host socket limit; the receivers' test CA is trusted
 * through NODE_EXTRA_CA_CERTS, as the server is given it. A non-2xx answer or an error fails the
 * job, which graphile-worker retries.
 *
 * graphile-worker's settings as its performance page recommends (worker.graphile.org/docs/performance):
 * `concurrentJobs` = our WEBHOOK_CONCURRENCY and `maxPoolSize` one more; the rest its defaults
 * (prepared statements, LISTEN/NOTIFY wake-ups, 2 s poll). Logs: errors and warnings only (ours runs
 * with LOG_LEVEL=error here; graphile-worker logs every completed job at info).
 * Environment: DATABASE_URL, PEER_CONCURRENCY, PEER_SOCKETS_PER_HOST. Sends `ready` over IPC once the
 * pool listens; SIGTERM stops it gracefully.
 */
import { EventEmitter } from 'node:events';
import https from 'node:https';
import { Logger, run, type Task, type WorkerEvents } from 'graphile-worker';
import { signatureHeader } from '../../src/webhooks/signature.ts';

export interface PeerJob {
  url: string;
  body: string;
  secret: string;
  eventId: string;
}

const concurrency = Number(process.env.PEER_CONCURRENCY ?? 50);
const agent = new https.Agent({ keepAlive: true, maxSockets: Number(process.env.PEER_SOCKETS_PER_HOST ?? 10), keepAliveMsecs: 1000 });
const TIMEOUT_MS = 10_000;

function post(job: PeerJob): Promise<number> {
  const timestamp = Math.floor(Date.now() / 1000);
  const body = Buffer.from(job.body);
  return new Promise((resolve, reject) => {
    const request = https.request(
      job.url,
      {
        method: 'POST',
        agent,
        timeout: TIMEOUT_MS,
        headers: {
          'content-type': 'application/json',
          'content-length': String(body.length),
          'user-agent': 'bench-graphile-worker-peer',
          'x-webhook-id': job.eventId,
          'x-webhook-timestamp': String(timestamp),
          'x-webhook-signature': signatureHeader([job.secret], timestamp, job.body),
        },
      },
      (response) => {
        response.resume();
        response.once('end', () => resolve(response.statusCode ?? 0));
        response.once('error', reject);
      },
    );
    request.once('timeout', () => request.destroy(new Error(`no response within ${TIMEOUT_MS} ms`)));
    request.once('error', reject);
    request.end(body);
  });
}

const deliver: Task = async (payload) => {
  const status = await post(payload as PeerJob);
  if (status < 200 || status >= 300) throw new Error(`receiver answered ${status}`);
};

const SHOWN: string[] = ['error', 'warning'];
const logger = new Logger(() => (level, message) => {
  if (SHOWN.includes(level)) console.error(`[peer ${level}] ${message}`);
});

const events: WorkerEvents = new EventEmitter();
// Ready once the pool listens for `jobs:insert` (the notification add_jobs sends).
events.once('pool:listen:success', () => process.send?.('ready'));
const runner = await run({
  connectionString: process.env.DATABASE_URL,
  schema: 'graphile_worker',
  concurrency,
  maxPoolSize: concurrency + 1,
  noHandleSignals: true,
  logger,
  events,
  taskList: { deliver },
});

process.once('SIGTERM', () => {
  void runner.stop().then(
    () => process.exit(0),
    () => process.exit(1),
  );
});
