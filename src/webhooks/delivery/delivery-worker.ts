/**
 * A delivery worker: keeps a small local queue of deliveries claimed from the database
 * (./queue.repository.ts), refilled in the background before it runs dry, sends each
 * (./transport.ts), classifies the result (./outcomes.ts) and records it (./completion-log.ts for
 * successes, in batches; ./completions.repository.ts for failures, at once), with at most
 * `concurrency` HTTP calls in flight. A slot is free the moment its response arrives: recording
 * the result does not hold it. It claims when the local queue runs low, on the `webhook_delivery`
 * notification sent when deliveries are queued, at the next retry it scheduled itself, and on a
 * poll (a notification sent while the LISTEN connection was down is lost; other workers schedule
 * retries this one does not know of). Any number of workers, in any processes, share one queue.
 */
import { randomUUID } from 'node:crypto';
import type { SecretBox } from '../../auth/secret-box.ts';
import type { Config } from '../../config.ts';
import type { DatabaseHandle } from '../../db/database.ts';
import { listenToChannel, type ChannelListener } from '../../db/notifications.ts';
import { createNameResolver } from '../../http/outbound/name-resolver.ts';
import { signatureHeader } from '../signature.ts';
import { noMetrics, type EndpointNotifier, type WebhookMetrics } from '../webhook-observer.ts';
import { createCompletionLog } from './completion-log.ts';
import { recordFailure, type Failure } from './completions.repository.ts';
import { classify } from './outcomes.ts';
import { claimDeliveries, releaseClaims, type ClaimedDelivery } from './queue.repository.ts';
import { createRenderedBodies } from './rendered-bodies.ts';
import { retryDelayMs } from './retry-schedule.ts';
import { openEndpointSecret } from '../endpoint-secrets.ts';
import { createTransport, type TransportResult } from './transport.ts';

interface WorkerLog {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
  error(details: object, message: string): void;
}

/** What an attempt wrapper is told of the attempt it wraps. */
interface AttemptDescription {
  deliveryId: string;
  endpointId: string;
  eventId: string;
  eventType: string;
  attempt: number;
  url: string;
}

/**
 * Runs around each attempt's HTTP exchange (tracing, src/ops/tracing/webhook-spans.ts): it calls
 * `send` once, with headers to add to the request (a `traceparent`), and returns its result.
 */
export type AttemptWrapper = (
  attempt: AttemptDescription,
  send: (headers: Record<string, string>) => Promise<TransportResult>,
) => Promise<TransportResult>;

interface DeliveryWorkerOptions {
  config: Pick<
    Config,
    | 'baseUrl'
    | 'dnsResolver'
    | 'webhookAllowPrivateTargets'
    | 'webhookConcurrency'
    | 'webhookDegradedAfter'
    | 'webhookDisabledAfter'
    | 'webhookFlushMs'
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
  /** Runs around each attempt's exchange; none by default. */
  aroundAttempt?: AttemptWrapper;
}

export interface DeliveryWorker {
  readonly id: string;
  /**
   * Stops claiming, hands the claimed but unsent deliveries back, waits for the attempts in flight
   * (at most the delivery time-out), writes what they got, stops listening.
   */
  stop(): Promise<void>;
}

const USER_AGENT = 'schemaforge-webhooks/1.0 (+https://github.com/schemaforge)';
/** Response bodies kept in the attempts log (failures only). */
const KEPT_BODY_CHARS = 2048;
/** Successes written in one statement at most; a full batch is written without waiting for the timer. */
const MAX_BATCH = 200;
/** How often the endpoints' health counters are written. */
const COUNTERS_MS = 1000;
/** How long after a retry's time its claim runs (see arm). */
const RETRY_WAKE_MARGIN_MS = 1;
/** A claimed delivery is sent only with this much of its lease left beyond the delivery time-out. */
const LEASE_MARGIN_MS = 2000;

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

/** Opened secrets kept, by endpoint and sealed value (a rotation is a new value): the oldest goes first. */
const KEPT_SECRETS = 10_000;

/**
 * The secrets a delivery is signed with, opened once per endpoint and sealed value rather than per
 * delivery (opening is an AES-GCM decryption: it was a tenth of a delivery's CPU). They stay in
 * this process's memory, as the key that opens them does.
 */
function createSigningSecrets(box: SecretBox): (d: ClaimedDelivery, now: Date) => string[] {
  const opened = new Map<string, string>();
  const open = (endpointId: string, stored: string): string => {
    const key = `${endpointId} ${stored}`;
    let secret = opened.get(key);
    if (secret === undefined) {
      secret = openEndpointSecret(box, endpointId, stored);
      if (opened.size >= KEPT_SECRETS) opened.delete(opened.keys().next().value!);
      opened.set(key, secret);
    }
    return secret;
  };
  return (d, now) => {
    const overlap = d.previous_secret && d.previous_secret_expires_at && d.previous_secret_expires_at > now;
    return overlap ? [open(d.endpoint_id, d.secret), open(d.endpoint_id, d.previous_secret!)] : [open(d.endpoint_id, d.secret)];
  };
}

function describe(result: TransportResult): string {
  return result.kind === 'error' ? `${result.error}: ${result.message}` : `HTTP ${result.status}`;
}

function increment(counts: Map<string, number>, key: string, by: number): void {
  const n = (counts.get(key) ?? 0) + by;
  if (n > 0) counts.set(key, n);
  else counts.delete(key);
}

export async function startDeliveryWorker(options: DeliveryWorkerOptions): Promise<DeliveryWorker> {
  const { config, database, log, aroundAttempt } = options;
  const db = database.db;
  const metrics = options.metrics ?? noMetrics;
  const notifier = options.notifier ?? logNotifier(log);
  const id = `${process.pid}-${randomUUID().slice(0, 8)}`;
  const concurrency = config.webhookConcurrency;
  // Claimed but not yet sent, beside the ones in flight: one more round of slots.
  const capacity = concurrency * 2;
  // Refilled at half a round left, so a claim in a burst takes at least half a round of rows.
  const refillBelow = Math.floor(concurrency / 2);
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
    maxSocketsPerHost: perEndpoint,
    ...(options.ca ? { ca: options.ca } : {}),
  });
  const bodyOf = createRenderedBodies(config.baseUrl);
  const signingSecrets = createSigningSecrets(options.secretBox);
  const completions = createCompletionLog({
    db,
    workerId: id,
    flushMs: config.webhookFlushMs,
    maxBatch: MAX_BATCH,
    countersMs: COUNTERS_MS,
    log,
    // Written successes may make deliveries due: the next of the same resource, held ones released.
    onWritten: () => wake(),
  });

  let running = true;
  /** Claimed, not sent yet, each with the time its lease runs out. */
  let local: { delivery: ClaimedDelivery; leaseEnds: number }[] = [];
  let inFlight = 0;
  /** Per endpoint: in flight (the per-endpoint cap applies to these). */
  const sending = new Map<string, number>();
  /** Per endpoint: claimed by this worker and not answered yet (in flight or in `local`). */
  const holding = new Map<string, number>();
  const attempts = new Set<Promise<void>>();
  let wakeTimer: NodeJS.Timeout | undefined;
  let wakeAt = Infinity;
  let pass: Promise<void> | undefined;
  let again = false;

  async function attempt(d: ClaimedDelivery): Promise<void> {
    const now = new Date();
    if (d.attempt === 1) metrics.firstAttempt((now.getTime() - d.event_created_at.getTime()) / 1000);
    const body = bodyOf(d);
    const timestamp = Math.floor(now.getTime() / 1000);
    const headers = {
      'content-type': 'application/json',
      'x-webhook-id': d.event_id,
      'x-webhook-timestamp': String(timestamp),
      'x-webhook-signature': signatureHeader(signingSecrets(d, now), timestamp, body),
    };
    let result: TransportResult;
    try {
      result = aroundAttempt
        ? await aroundAttempt(
            { deliveryId: d.id, endpointId: d.endpoint_id, eventId: d.event_id, eventType: d.event_type, attempt: d.attempt, url: d.url },
            (extra) => send({ url: d.url, body, headers: { ...headers, ...extra } }),
          )
        : await send({ url: d.url, body, headers });
    } finally {
      answered(d);
    }
    const outcome = classify(result, new Date());
    if (outcome.result === 'delivered') {
      metrics.acknowledged((Date.now() - d.event_created_at.getTime()) / 1000);
      metrics.attempt('delivered');
      completions.success({
        deliveryId: d.id,
        attempt: d.attempt,
        responseCode: result.kind === 'response' ? result.status : 0,
        responseTimeMs: result.durationMs,
        answeredAt: new Date(),
      });
      return;
    }
    const failure: Failure = {
      deliveryId: d.id,
      state: 'failed',
      nextAttemptAt: null,
      responseCode: result.kind === 'response' ? result.status : null,
      responseTimeMs: result.durationMs,
      responseBody: result.kind === 'response' ? result.body.slice(0, KEPT_BODY_CHARS) : null,
      error: result.kind === 'error' ? `${result.error}: ${result.message}` : null,
      degradedAfter: config.webhookDegradedAfter,
      disabledAfter: config.webhookDisabledAfter,
    };
    const delay =
      outcome.result === 'retry'
        ? retryDelayMs(
            d.attempt,
            config.webhookRetryDelaysMs,
            outcome.retryAfterMs !== undefined ? { retryAfterMs: outcome.retryAfterMs } : {},
          )
        : null;
    if (outcome.result === 'final') {
      metrics.attempt('failed');
    } else if (delay === null) {
      failure.state = 'dead';
      metrics.attempt('dead');
      log.error(
        { deliveryId: d.id, eventId: d.event_id, endpointId: d.endpoint_id, attempts: d.attempt, last: describe(result) },
        'webhook delivery failed its last attempt and went to the dead-letter store',
      );
    } else {
      failure.state = 'pending';
      failure.nextAttemptAt = new Date(Date.now() + delay);
      metrics.attempt('retry');
      wakeBy(failure.nextAttemptAt.getTime());
    }
    // The successes answered before this failure are counted first.
    await completions.flush();
    const change = await recordFailure(db, failure);
    // A claim meanwhile skipped the endpoint this held locked (SKIP LOCKED): look again now.
    wake();
    if (change && change.status !== 'active') await handBack(change.endpoint_id);
    if (change?.newly_disabled) {
      await notifier
        .endpointDisabled({ id: change.endpoint_id, url: change.url, consecutiveFailures: change.consecutive_failures })
        .catch((error: unknown) => log.error({ err: error, endpointId: change.endpoint_id }, 'endpoint-disabled notifier failed'));
    }
  }

  /** The response (or the failure to get one) is in: the slot is free for the next delivery. */
  function answered(d: ClaimedDelivery): void {
    inFlight--;
    increment(sending, d.endpoint_id, -1);
    increment(holding, d.endpoint_id, -1);
    dispatch();
    // Refilled before it runs dry: the next claim is under way while the last round is sent. (Run
    // dry, it is looked at once the answers are written: that may make the next of a resource due.)
    if (local.length > 0 && local.length <= refillBelow) wake();
  }

  /**
   * An endpoint that stopped being active gets none of the deliveries claimed for it and not sent
   * yet: they go back to the queue, whose rules decide when they are due (a disabled endpoint's
   * were skipped by the failure that disabled it, and stay so).
   */
  async function handBack(endpointId: string): Promise<void> {
    const kept = local.filter((l) => l.delivery.endpoint_id !== endpointId);
    if (kept.length === local.length) return;
    const returned = local.filter((l) => l.delivery.endpoint_id === endpointId).map((l) => l.delivery.id);
    local = kept;
    increment(holding, endpointId, -returned.length);
    await releaseClaims(db, id, returned);
  }

  function launch(d: ClaimedDelivery): void {
    inFlight++;
    increment(sending, d.endpoint_id, 1);
    const running = attempt(d)
      .catch((error: unknown) => {
        // The lease makes the delivery due again: at least once, never lost.
        log.error({ err: error, deliveryId: d.id }, 'webhook attempt could not be recorded; it will be retried when its lease ends');
      })
      .finally(() => attempts.delete(running));
    attempts.add(running);
  }

  /** Starts claimed deliveries while slots are free, oldest first, skipping endpoints at their cap. */
  function dispatch(): void {
    if (!running) return;
    const now = Date.now();
    const stale: string[] = [];
    for (let i = 0; i < local.length && inFlight < concurrency;) {
      const { delivery, leaseEnds } = local[i]!;
      if (leaseEnds - now < config.webhookTimeoutMs + LEASE_MARGIN_MS) {
        // Waited too long behind its endpoint's slow answers: not enough lease left to send it.
        local.splice(i, 1);
        increment(holding, delivery.endpoint_id, -1);
        stale.push(delivery.id);
      } else if ((sending.get(delivery.endpoint_id) ?? 0) < perEndpoint) {
        local.splice(i, 1);
        launch(delivery);
      } else i++;
    }
    if (stale.length > 0) {
      releaseClaims(db, id, stale).catch((error: unknown) =>
        log.error({ err: error }, 'webhook claims could not be handed back; they are due again when their leases end'),
      );
    }
  }

  async function claimPass(): Promise<void> {
    while (running) {
      const free = capacity - inFlight - local.length;
      // Enough is in hand for now: a claim for a few rows would cost a statement for little.
      if (free <= 0 || (local.length > refillBelow && free < refillBelow)) return;
      const saturated = [...holding].filter(([, n]) => n >= perEndpoint).map(([endpoint]) => endpoint);
      const claimedAt = Date.now();
      const claimed = await claimDeliveries(db, {
        workerId: id,
        limit: free,
        leaseMs,
        ratePerEndpoint: config.webhookRatePerEndpoint,
        perEndpoint,
        skipEndpoints: saturated,
      });
      for (const delivery of claimed) {
        local.push({ delivery, leaseEnds: claimedAt + leaseMs });
        increment(holding, delivery.endpoint_id, 1);
      }
      dispatch();
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
    arm();
  }

  /**
   * A timer counts from the event loop's cached clock, which lags the real one by however long the
   * current turn has run: it can fire before `Date.now()` reaches its time, when a claim would find
   * the retry not yet due and leave it to the poll. So it checks the clock, and waits out the rest.
   */
  function arm(): void {
    wakeTimer = setTimeout(
      () => {
        if (Date.now() < wakeAt) return arm();
        wakeAt = Infinity;
        wake();
      },
      Math.max(wakeAt - Date.now(), 0) + RETRY_WAKE_MARGIN_MS,
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
      const unsent = local.map((l) => l.delivery.id);
      local = [];
      await releaseClaims(db, id, unsent).catch((error: unknown) =>
        log.error({ err: error }, 'webhook claims could not be handed back; they are due again when their leases end'),
      );
      await Promise.allSettled([...attempts]);
      await completions.close();
    },
  };
}
