/**
 * A delivery worker: keeps a small local queue of deliveries claimed from the database
 * (./queue.repository.ts, held in ./local-queue.ts), refilled in the background before it runs dry,
 * sends each (./signed-request.ts, ./transport.ts), classifies the result (./outcomes.ts) and records
 * it (./completion-log.ts for successes, in batches; ./failures.ts and ./completions.repository.ts
 * for failures, at once), with at most `concurrency` HTTP calls in flight. A slot is free the moment
 * its response arrives: recording the result does not hold it. It claims when the local queue runs
 * low, on the `webhook_delivery` notification sent when deliveries are queued, at the next retry it
 * scheduled itself (./retry-alarm.ts), and on a poll (a notification sent while the LISTEN
 * connection was down is lost; other workers schedule retries this one does not know of). Any
 * number of workers, in any processes, share one queue.
 *
 * The stages, in the order a delivery goes through them: claim, dispatch, send, then record success
 * or handle failure; release hands claims back unsent.
 */
import { randomUUID } from 'node:crypto';
import type { SecretBox } from '../../auth/secret-box.ts';
import type { Config } from '../../config.ts';
import type { DatabaseHandle } from '../../db/database.ts';
import { listenToChannel, type ChannelListener } from '../../db/notifications.ts';
import { createNameResolver } from '../../http/outbound/name-resolver.ts';
import { noMetrics, type EndpointNotifier, type WebhookMetrics } from '../webhook-observer.ts';
import { createCompletionLog } from './completion-log.ts';
import { recordFailure, type Failure } from './completions.repository.ts';
import { describe, failureOf } from './failures.ts';
import { LocalQueue } from './local-queue.ts';
import { classify } from './outcomes.ts';
import { claimDeliveries, releaseClaims, type ClaimedDelivery } from './queue.repository.ts';
import { RetryAlarm } from './retry-alarm.ts';
import { createRequestSigner } from './signed-request.ts';
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
/** Successes written in one statement at most; a full batch is written without waiting for the timer. */
const MAX_BATCH = 200;
/** How often the endpoints' health counters are written. */
const COUNTERS_MS = 1000;
/** A claimed delivery is sent only with this much of its lease left beyond the delivery time-out. */
const LEASE_MARGIN_MS = 2000;

export function startDeliveryWorker(options: DeliveryWorkerOptions): Promise<DeliveryWorker> {
  return QueueWorker.start(options);
}

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

class QueueWorker implements DeliveryWorker {
  readonly id = `${process.pid}-${randomUUID().slice(0, 8)}`;
  /** Cleared by stop: nothing is claimed or sent after it. */
  private running = true;
  private readonly queue: LocalQueue;
  /** The attempts under way (sending, or recording what they got): stop waits for them. */
  private readonly attempts = new Set<Promise<void>>();
  /** The claim pass under way, if any, and whether another was asked for meanwhile. */
  private pass: Promise<void> | undefined;
  private again = false;
  private readonly retryAlarm = new RetryAlarm(() => this.wake());
  private poller: NodeJS.Timeout | undefined;
  private listener: ChannelListener | undefined;

  private readonly perEndpoint: number;
  private readonly leaseMs: number;
  private readonly transport: ReturnType<typeof createTransport>;
  private readonly sign: ReturnType<typeof createRequestSigner>;
  private readonly completions: ReturnType<typeof createCompletionLog>;
  private readonly metrics: WebhookMetrics;
  private readonly notifier: EndpointNotifier;

  private constructor(private readonly options: DeliveryWorkerOptions) {
    const { config } = options;
    // One endpoint may take a fifth of the slots: a slow one cannot starve the others (decision 85).
    this.perEndpoint = Math.max(1, Math.ceil(config.webhookConcurrency / 5));
    // Every hop of one attempt shares one deadline; the lease outlives it with room to record the result.
    this.leaseMs = config.webhookTimeoutMs * 2 + 5000;
    this.queue = new LocalQueue({ concurrency: config.webhookConcurrency, perEndpoint: this.perEndpoint });
    this.transport = createTransport({
      timeoutMs: config.webhookTimeoutMs,
      allowPrivateTargets: config.webhookAllowPrivateTargets,
      resolve: createNameResolver(config.dnsResolver),
      userAgent: USER_AGENT,
      maxSocketsPerHost: this.perEndpoint,
      ...(options.ca ? { ca: options.ca } : {}),
    });
    this.sign = createRequestSigner(config.baseUrl, options.secretBox);
    this.completions = createCompletionLog({
      db: options.database.db,
      workerId: this.id,
      flushMs: config.webhookFlushMs,
      maxBatch: MAX_BATCH,
      countersMs: COUNTERS_MS,
      log: options.log,
      // Written successes may make deliveries due: the next of the same resource, held ones released.
      onWritten: () => this.wake(),
    });
    this.metrics = options.metrics ?? noMetrics;
    this.notifier = options.notifier ?? logNotifier(options.log);
  }

  static async start(options: DeliveryWorkerOptions): Promise<QueueWorker> {
    const worker = new QueueWorker(options);
    await worker.listen();
    return worker;
  }

  /** Claims on a poll and on each notification, and once now. */
  private async listen(): Promise<void> {
    const { database, log } = this.options;
    this.poller = setInterval(() => this.wake(), this.options.pollMs ?? 1000);
    this.poller.unref();
    try {
      const wake = () => this.wake();
      this.listener = await listenToChannel(database, 'webhook_delivery', wake, { log, onReconnect: wake });
    } catch (error) {
      clearInterval(this.poller);
      throw error;
    }
    this.wake();
    log.info({ workerId: this.id, concurrency: this.options.config.webhookConcurrency }, 'webhook delivery worker started');
  }

  async stop(): Promise<void> {
    this.running = false;
    clearInterval(this.poller);
    this.retryAlarm.cancel();
    await this.listener?.close();
    await this.pass;
    await this.release(this.queue.withdraw());
    await Promise.allSettled([...this.attempts]);
    await this.completions.close();
  }

  /** Runs a claim pass now, or right after the one under way. */
  private wake(): void {
    if (!this.running) return;
    if (this.pass) {
      this.again = true;
      return;
    }
    this.pass = this.claim()
      .catch((error: unknown) => this.options.log.error({ err: error }, 'webhook claim failed; retrying on the next poll'))
      .finally(() => {
        this.pass = undefined;
        if (this.again) {
          this.again = false;
          this.wake();
        }
      });
  }

  /** Stage 1, claim: fills the local queue from the shared one, batch after batch while batches come back full. */
  private async claim(): Promise<void> {
    const { config } = this.options;
    // One more pass after a short batch that spent a rate window (see below), not a loop of them.
    let passedOverSpent = false;
    while (this.running) {
      const limit = this.queue.claimSize();
      if (limit === 0) return;
      const claimedAt = Date.now();
      const claimed = await claimDeliveries(this.options.database.db, {
        workerId: this.id,
        limit,
        leaseMs: this.leaseMs,
        ratePerEndpoint: config.webhookRatePerEndpoint,
        perEndpoint: this.perEndpoint,
        skipEndpoints: this.queue.saturated(),
      });
      this.queue.add(claimed, claimedAt + this.leaseMs);
      this.reopenAlarm(claimed);
      this.dispatch();
      // A short batch means nothing else is due now, unless it spent an endpoint's rate window: that
      // endpoint's backlog may have filled the scan, and the next scan passes over it to the others.
      if (claimed.length < limit) {
        if (passedOverSpent || !claimed.some((d) => d.rate_window_reopens_in_ms !== null)) return;
        passedOverSpent = true;
      }
    }
  }

  /**
   * An endpoint whose rate window this claim spent (a limited one with more due) is claimed again
   * when the window opens, not at the next poll, which would leave it up to a second below its rate.
   * The time is counted from now, after the claim, so the alarm never rings before the window opens.
   */
  private reopenAlarm(claimed: readonly ClaimedDelivery[]): void {
    let soonest = Infinity;
    for (const d of claimed) if (d.rate_window_reopens_in_ms !== null) soonest = Math.min(soonest, d.rate_window_reopens_in_ms);
    if (soonest < Infinity) this.retryAlarm.setBy(Date.now() + soonest);
  }

  /** Stage 2, dispatch: starts claimed deliveries while slots are free; hands back those whose lease is too short. */
  private dispatch(): void {
    if (!this.running) return;
    const { ready, stale } = this.queue.takeReady(Date.now(), this.options.config.webhookTimeoutMs + LEASE_MARGIN_MS);
    for (const delivery of ready) this.launch(delivery);
    if (stale.length > 0) void this.release(stale);
  }

  /** Runs one attempt in the background, kept for stop to wait for. */
  private launch(d: ClaimedDelivery): void {
    const attempt = this.attempt(d)
      .catch((error: unknown) => {
        // The lease makes the delivery due again: at least once, never lost.
        this.options.log.error(
          { err: error, deliveryId: d.id },
          'webhook attempt could not be recorded; it will be retried when its lease ends',
        );
      })
      .finally(() => this.attempts.delete(attempt));
    this.attempts.add(attempt);
  }

  private async attempt(d: ClaimedDelivery): Promise<void> {
    const result = await this.send(d);
    const outcome = classify(result, new Date());
    if (outcome.result === 'delivered') this.recordSuccess(d, result);
    else await this.handleFailure(failureOf(d, result, outcome, this.options.config), d, result);
  }

  /** Stage 3, send: the signed POST (inside the attempt wrapper); its slot is free once it is answered. */
  private async send(d: ClaimedDelivery): Promise<TransportResult> {
    const now = new Date();
    if (d.attempt === 1) this.metrics.firstAttempt((now.getTime() - d.event_created_at.getTime()) / 1000);
    const { aroundAttempt } = this.options;
    try {
      let request: ReturnType<typeof this.sign>;
      try {
        request = this.sign(d, now);
      } catch {
        // A secret sealed under another SECRETS_KEY: a failed attempt (retried on the schedule,
        // seen in the attempts log and the endpoint's health), never an unsigned or mis-signed POST.
        return { kind: 'error', error: 'signing', message: 'the endpoint secret does not open under SECRETS_KEY', durationMs: 0 };
      }
      return aroundAttempt
        ? await aroundAttempt(
            { deliveryId: d.id, endpointId: d.endpoint_id, eventId: d.event_id, eventType: d.event_type, attempt: d.attempt, url: d.url },
            (extra) => this.transport({ ...request, headers: { ...request.headers, ...extra } }),
          )
        : await this.transport(request);
    } finally {
      this.answered(d);
    }
  }

  /** The response (or the failure to get one) is in: the slot is free for the next delivery. */
  private answered(d: ClaimedDelivery): void {
    this.queue.answered(d);
    this.dispatch();
    // Refilled before it runs dry: the next claim is under way while the last round is sent. (Run
    // dry, it is looked at once the answers are written: that may make the next of a resource due.)
    if (this.queue.runningLow()) this.wake();
  }

  /** Stage 4a, record success: counted now, written with the next batch (./completion-log.ts). */
  private recordSuccess(d: ClaimedDelivery, result: TransportResult): void {
    this.metrics.acknowledged((Date.now() - d.event_created_at.getTime()) / 1000);
    this.metrics.attempt('delivered');
    this.completions.success({
      deliveryId: d.id,
      attempt: d.attempt,
      responseCode: result.kind === 'response' ? result.status : 0,
      responseTimeMs: result.durationMs,
      answeredAt: new Date(),
    });
  }

  /**
   * Stage 4b, handle failure: counted, written at once (after the successes answered before it),
   * then the endpoint's new state followed: its unsent deliveries handed back, the notifier told.
   */
  private async handleFailure(failure: Failure, d: ClaimedDelivery, result: TransportResult): Promise<void> {
    this.reportFailure(failure, d, result);
    // The successes answered before this failure are counted first.
    await this.completions.flush();
    const change = await recordFailure(this.options.database.db, failure);
    // A claim meanwhile skipped the endpoint this held locked (SKIP LOCKED): look again now.
    this.wake();
    // The failure is recorded: if handing back fails, the leases running out do the same, and the
    // notifier is still told.
    if (change && change.status !== 'active') await this.handBack(change.endpoint_id);
    if (change?.newly_disabled) {
      const { endpoint_id: id, url, consecutive_failures: consecutiveFailures } = change;
      await this.notifier
        .endpointDisabled({ id, url, consecutiveFailures })
        .catch((error: unknown) => this.options.log.error({ err: error, endpointId: id }, 'endpoint-disabled notifier failed'));
    }
  }

  /** The failure's metric, the dead letter's log line, and the alarm for a retry. */
  private reportFailure(failure: Failure, d: ClaimedDelivery, result: TransportResult): void {
    if (failure.state === 'failed') {
      this.metrics.attempt('failed');
    } else if (failure.state === 'dead') {
      this.metrics.attempt('dead');
      this.options.log.error(
        { deliveryId: d.id, eventId: d.event_id, endpointId: d.endpoint_id, attempts: d.attempt, last: describe(result) },
        'webhook delivery failed its last attempt and went to the dead-letter store',
      );
    } else {
      this.metrics.attempt('retry');
      this.retryAlarm.setBy(failure.nextAttemptAt!.getTime());
    }
  }

  /**
   * Stage 5, release: hands claims back to the queue unsent (stale ones, a stopping worker's), due at
   * once for any worker. If that fails, the leases running out do the same.
   */
  private async release(ids: readonly string[]): Promise<void> {
    await releaseClaims(this.options.database.db, this.id, ids).catch((error: unknown) =>
      this.options.log.error({ err: error }, 'webhook claims could not be handed back; they are due again when their leases end'),
    );
  }

  /**
   * An endpoint that stopped being active gets none of the deliveries claimed for it and not sent
   * yet: they go back to the queue, whose rules decide when they are due (a disabled endpoint's
   * were skipped by the failure that disabled it, and stay so). A failure here is `release`'s.
   */
  private handBack(endpointId: string): Promise<void> {
    return this.release(this.queue.withdraw(endpointId));
  }
}
