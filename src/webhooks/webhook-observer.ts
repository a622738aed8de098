/**
 * What the delivery worker reports, and to whom: metrics (src/ops/metrics.ts implements it with
 * prom-client) and the consumer notifier (an endpoint was disabled). Kept as interfaces so the
 * worker knows nothing of Prometheus or of how consumers are told.
 */
export type AttemptOutcome = 'delivered' | 'failed' | 'retry' | 'dead';

export interface WebhookMetrics {
  /** One HTTP attempt ended with this outcome (`dead`: its failure exhausted the attempts). */
  attempt(outcome: AttemptOutcome): void;
  /** Seconds from the event's commit to the receiver's acknowledgement (2xx). */
  acknowledged(latencySeconds: number): void;
  /** Seconds from the event's commit to its first attempt starting. */
  firstAttempt(latencySeconds: number): void;
}

export interface DisabledEndpoint {
  id: string;
  url: string;
  consecutiveFailures: number;
}

/** Tells an endpoint's owner that it was disabled (the state table's "consumer is notified"). */
export interface EndpointNotifier {
  endpointDisabled(endpoint: DisabledEndpoint): Promise<void>;
}

export const noMetrics: WebhookMetrics = { attempt() {}, acknowledged() {}, firstAttempt() {} };
