/**
 * A delivery worker: claims due deliveries from the queue (src/webhooks/delivery/queue.repository.ts),
 * sends each (transport.ts), classifies the result (outcomes.ts) and records it, with at most
 * `concurrency` HTTP calls in flight. It wakes on the `webhook_delivery` notification sent when
 * deliveries are queued, when a slot frees, at the next retry it scheduled itself, and on a poll
 * (a notification sent while the LISTEN connection was down is lost; other workers schedule
 * retries this one does not know of). Any number of workers, in any processes, share one queue.
 */
import { randomUUID } from 'node:crypto';
import type { SecretBox } from '../../auth/secret-box.ts';
import type { Config } from '../../config.ts';
import type { DatabaseHandle } from '../../db/database.ts';
import { listenToChannel, type ChannelListener } from '../../db/notifications.ts';
import { renderEnvelope } from '../events/envelope.ts';
import { createNameResolver } from '../../http/outbound/name-resolver.ts';
import { signatureHeader } from '../signature.ts';
import { noMetrics, type EndpointNotifier, type WebhookMetrics } from '../webhook-observer.ts';
import { classify } from './outcomes.ts';
import { claimDeliveries, completeDelivery, type ClaimedDelivery, type Completion } from './queue.repository.ts';
import { retryDelayMs } from './retry-schedule.ts';
import { openEndpointSecret } from '../endpoint-secrets.ts';
import { createTransport, type TransportResult } from './transport.ts';

interface WorkerLog {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
  error(details: object, message: string): void;
}

interface DeliveryWorkerOptions {
  config: Pick<
    Config,
    | 'baseUrl'
    | 'dnsResolver'
    | 'webhookAllowPrivateTargets'
    | 'webhookConcurrency'
    | 'webhookDegradedAfter'
    | 'webhookDisabledAfter'
    | 'webhookRatePerEndpoint'
    | 'webhookRetryDelaysMs'
    | 'webhookTimeoutMs'
  >;
  database: DatabaseHandle;
  log: WorkerLog;
  metrics?: WebhookMetrics;
  notifier?: EndpointNotifier;
  /** Extra CAs the transport trusts (tests running receivers with a test CA in this process). */
  ca?: string;
  /** Opens the endpoints' sealed signing secrets (SECRETS_KEY). */
  secretBox: SecretBox;
  /** How often the queue is looked at without a notification; 1 s by default. */
  pollMs?: number;
}

export interface DeliveryWorker {
  readonly id: string;
  /** Stops claiming, waits for the attempts in flight (at most the delivery time-out), stops listening. */
  stop(): Promise<void>;
}

const USER_AGENT = 'schemaforge-webhooks/1.0 (+https://github.com/schemaforge)';
/** Response bodies kept in the attempts log (failures only). */
const KEPT_BODY_CHARS = 2048;

/** The default notifier: a warning in the log naming the endpoint (decision 85). */
function logNotifier(log: WorkerLog): EndpointNotifier {
  return {
    endpointDisabled: async (endpoint) => {
      log.warn(
        { endpointId: endpoint.id, url: endpoint.url, consecutiveFailures: endpoint.consecutiveFailures },
        'webhook endpoint disabled after too many consecutive failures; re-enable it with POST /api/webhooks/{id}/enable',
      );
    },
  };
}

function signingSecrets(box: SecretBox, d: ClaimedDelivery, now: Date): string[] {
  const overlap = d.previous_secret && d.previous_secret_expires_at && d.previous_secret_expires_at > now;
  const stored = overlap ? [d.secret, d.previous_secret!] : [d.secret];
  return stored.map((secret) => openEndpointSecret(box, d.endpoint_id, secret));
}

function describe(result: TransportResult): string {
  return result.kind === 'error' ? `${result.error}: ${result.message}` : `HTTP ${result.status}`;
}

export async function startDeliveryWorker(options: DeliveryWorkerOptions): Promise<DeliveryWorker> {
  const { config, database, log } = options;
  const db = database.db;
  const metrics = options.metrics ?? noMetrics;
  const notifier = options.notifier ?? logNotifier(log);
  const id = `${process.pid}-${randomUUID().slice(0, 8)}`;
  const concurrency = config.webhookConcurrency;
  // One endpoint may take a fifth of the slots: a slow one cannot starve the others (decision 85).
  const perEndpoint = Math.max(1, Math.ceil(concurrency / 5));
  // Every hop of one attempt shares one deadline; the lease outlives it with room to record the result.
  const leaseMs = config.webhookTimeoutMs * 2 + 5000;
  const pollMs = options.pollMs ?? 1000;
  const send = createTransport({
    timeoutMs: config.webhookTimeoutMs,
    allowPrivateTargets: config.webhookAllowPrivateTargets,
    resolve: createNameResolver(config.dnsResolver),
    userAgent: USER_AGENT,
    ...(options.ca ? { ca: options.ca } : {}),
  });

  let running = true;
  let inFlight = 0;
  const perEndpointInFlight = new Map<string, number>();
  const attempts = new Set<Promise<void>>();
  let wakeTimer: NodeJS.Timeout | undefined;
  let wakeAt = Infinity;
  let pass: Promise<void> | undefined;
  let again = false;

  async function attempt(d: ClaimedDelivery): Promise<void> {
    const now = new Date();
    if (d.attempt === 1) metrics.firstAttempt((now.getTime() - d.event_created_at.getTime()) / 1000);
    const body = renderEnvelope(
      {
        id: d.event_id,
        type: d.event_type,
        resource_type: d.event_resource_type,
        resource_id: d.event_resource_id,
        sequence: d.event_sequence,
        object: d.event_object,
        previous_attributes: d.event_previous_attributes,
        resource_path: d.event_resource_path,
        created_at: d.event_created_at,
      },
      { api_version: d.api_version, payload: d.payload },
      config.baseUrl,
    );
    const timestamp = Math.floor(now.getTime() / 1000);
    const result = await send({
      url: d.url,
      body,
      headers: {
        'content-type': 'application/json',
        'x-webhook-id': d.event_id,
        'x-webhook-timestamp': String(timestamp),
        'x-webhook-signature': signatureHeader(signingSecrets(options.secretBox, d, now), timestamp, body),
      },
    });
    const outcome = classify(result, new Date());
    const completion: Completion = {
      deliveryId: d.id,
      state: 'delivered',
      nextAttemptAt: null,
      responseCode: result.kind === 'response' ? result.status : null,
      responseTimeMs: result.durationMs,
      responseBody: null,
      error: null,
      degradedAfter: config.webhookDegradedAfter,
      disabledAfter: config.webhookDisabledAfter,
    };
    if (outcome.result === 'delivered') {
      metrics.acknowledged((Date.now() - d.event_created_at.getTime()) / 1000);
      metrics.attempt('delivered');
    } else {
      completion.responseBody = result.kind === 'response' ? result.body.slice(0, KEPT_BODY_CHARS) : null;
      completion.error = result.kind === 'error' ? `${result.error}: ${result.message}` : null;
      const delay =
        outcome.result === 'retry'
          ? retryDelayMs(
              d.attempt,
              config.webhookRetryDelaysMs,
              outcome.retryAfterMs !== undefined ? { retryAfterMs: outcome.retryAfterMs } : {},
            )
          : null;
      if (outcome.result === 'final') {
        completion.state = 'failed';
        metrics.attempt('failed');
      } else if (delay === null) {
        completion.state = 'dead';
        metrics.attempt('dead');
        log.error(
          { deliveryId: d.id, eventId: d.event_id, endpointId: d.endpoint_id, attempts: d.attempt, last: describe(result) },
          'webhook delivery failed its last attempt and went to the dead-letter store',
        );
      } else {
        completion.state = 'pending';
        completion.nextAttemptAt = new Date(Date.now() + delay);
        metrics.attempt('retry');
        wakeBy(completion.nextAttemptAt.getTime());
      }
    }
    const change = await completeDelivery(db, completion);
    if (change?.newly_disabled) {
      await notifier
        .endpointDisabled({ id: change.endpoint_id, url: change.url, consecutiveFailures: change.consecutive_failures })
        .catch((error: unknown) => log.error({ err: error, endpointId: change.endpoint_id }, 'endpoint-disabled notifier failed'));
    }
    if (change && change.status === 'active' && change.previous_status !== 'active') wake();
  }

  function launch(d: ClaimedDelivery): void {
    inFlight++;
    perEndpointInFlight.set(d.endpoint_id, (perEndpointInFlight.get(d.endpoint_id) ?? 0) + 1);
    const running = attempt(d)
      .catch((error: unknown) => {
        // The lease makes the delivery due again: at least once, never lost.
        log.error({ err: error, deliveryId: d.id }, 'webhook attempt could not be recorded; it will be retried when its lease ends');
      })
      .finally(() => {
        inFlight--;
        const left = (perEndpointInFlight.get(d.endpoint_id) ?? 1) - 1;
        if (left > 0) perEndpointInFlight.set(d.endpoint_id, left);
        else perEndpointInFlight.delete(d.endpoint_id);
        attempts.delete(running);
        wake();
      });
    attempts.add(running);
  }

  async function claimPass(): Promise<void> {
    while (running) {
      const free = concurrency - inFlight;
      if (free <= 0) return;
      const saturated = [...perEndpointInFlight].filter(([, n]) => n >= perEndpoint).map(([endpoint]) => endpoint);
      const claimed = await claimDeliveries(db, {
        workerId: id,
        limit: free,
        leaseMs,
        ratePerEndpoint: config.webhookRatePerEndpoint,
        perEndpoint,
        skipEndpoints: saturated,
      });
      for (const d of claimed) launch(d);
      // A short batch means nothing else is due now (or the rate windows are spent).
      if (claimed.length < free) return;
    }
  }

  /** Runs a claim pass now, or right after the one under way. */
  function wake(): void {
    if (!running) return;
    if (pass) {
      again = true;
      return;
    }
    pass = claimPass()
      .catch((error: unknown) => log.error({ err: error }, 'webhook claim failed; retrying on the next poll'))
      .finally(() => {
        pass = undefined;
        if (again) {
          again = false;
          wake();
        }
      });
  }

  function wakeBy(at: number): void {
    if (at >= wakeAt) return;
    clearTimeout(wakeTimer);
    wakeAt = at;
    wakeTimer = setTimeout(
      () => {
        wakeAt = Infinity;
        wake();
      },
      Math.max(at - Date.now(), 0),
    );
    wakeTimer.unref();
  }

  const poller = setInterval(wake, pollMs);
  poller.unref();
  let listener: ChannelListener | undefined;
  try {
    listener = await listenToChannel(database, 'webhook_delivery', wake, { log, onReconnect: wake });
  } catch (error) {
    clearInterval(poller);
    throw error;
  }
  wake();
  log.info({ workerId: id, concurrency }, 'webhook delivery worker started');

  return {
    id,
    async stop() {
      running = false;
      clearInterval(poller);
      clearTimeout(wakeTimer);
      await listener?.close();
      await pass;
      await Promise.allSettled([...attempts]);
    },
  };
}
