/**
 * What a failed attempt writes (./completions.repository.ts, `recordFailure`): the delivery's next
 * state from the outcome (./outcomes.ts) and the retry schedule (./retry-schedule.ts), and what the
 * attempts log keeps of the answer. Pure: the worker counts, logs and writes it.
 */
import type { Failure } from './completions.repository.ts';
import type { classify } from './outcomes.ts';
import type { ClaimedDelivery } from './queue.repository.ts';
import { retryDelayMs } from './retry-schedule.ts';
import type { TransportResult } from './transport.ts';

/** Response bodies kept in the attempts log (failures only). */
const KEPT_BODY_CHARS = 2048;

interface FailurePolicy {
  webhookRetryDelaysMs: readonly number[];
  webhookDegradedAfter: number;
  webhookDisabledAfter: number;
}

/** Any outcome but `delivered`. */
type FailedOutcome = Exclude<ReturnType<typeof classify>, { result: 'delivered' }>;

/**
 * `final` fails the delivery; `retry` makes it pending again after the schedule's delay (or the
 * receiver's Retry-After), or dead when that was its last attempt.
 */
export function failureOf(d: ClaimedDelivery, result: TransportResult, outcome: FailedOutcome, policy: FailurePolicy): Failure {
  const failure: Failure = {
    deliveryId: d.id,
    state: 'failed',
    nextAttemptAt: null,
    responseCode: result.kind === 'response' ? result.status : null,
    responseTimeMs: result.durationMs,
    responseBody: result.kind === 'response' ? result.body.slice(0, KEPT_BODY_CHARS) : null,
    error: result.kind === 'error' ? describe(result) : null,
    degradedAfter: policy.webhookDegradedAfter,
    disabledAfter: policy.webhookDisabledAfter,
  };
  if (outcome.result === 'final') return failure;
  const retryAfter = outcome.retryAfterMs !== undefined ? { retryAfterMs: outcome.retryAfterMs } : {};
  const delay = retryDelayMs(d.attempt, policy.webhookRetryDelaysMs, retryAfter);
  if (delay === null) return { ...failure, state: 'dead' };
  return { ...failure, state: 'pending', nextAttemptAt: new Date(Date.now() + delay) };
}

/** The answer in a few words, as the log names it. */
export function describe(result: TransportResult): string {
  return result.kind === 'error' ? `${result.error}: ${result.message}` : `HTTP ${result.status}`;
}
