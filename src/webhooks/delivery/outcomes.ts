/**
 * The interface document's outcomes table as one pure function: what the sender does with what the
 * transport got. Redirects (301/302, at most 3) are followed inside the transport; what reaches this
 * function is the final answer or why there was none.
 */
import type { TransportResult } from './transport.ts';

type Outcome = { result: 'delivered' } | { result: 'final' } | { result: 'retry'; retryAfterMs?: number };

/** Retry-After is honoured up to the retry delay cap. */
const RETRY_AFTER_CAP_MS = 24 * 3600 * 1000;

/** Retry-After as delta-seconds or an HTTP-date; undefined when absent or unreadable (normal backoff). */
function retryAfterMs(value: string | undefined, now: Date): number | undefined {
  if (!value) return undefined;
  const text = value.trim();
  let ms: number;
  if (/^\d+$/.test(text)) ms = Number(text) * 1000;
  else {
    const date = Date.parse(text);
    if (Number.isNaN(date) || !/[a-z]/i.test(text)) return undefined;
    ms = date - now.getTime();
  }
  return Math.min(Math.max(ms, 0), RETRY_AFTER_CAP_MS);
}

export function classify(result: TransportResult, now: Date): Outcome {
  if (result.kind === 'error') {
    switch (result.error) {
      // Connect or response time-out, DNS resolution failure, TLS handshake failure, and a refused
      // or reset connection: the receiver may be back later.
      case 'timeout':
      case 'dns':
      case 'tls':
      case 'connection':
      case 'signing':
        // `signing`: not sent, the secret did not open under SECRETS_KEY, which the operator can put right.
        return { result: 'retry' };
      // The target itself is unacceptable (an internal address, a redirect loop or a non-https
      // redirect): retrying the same request cannot succeed, so the attempt is final (decision 82).
      case 'address_refused':
      case 'redirect_limit':
      case 'redirect_invalid':
        return { result: 'final' };
    }
  }
  const { status } = result;
  if (status >= 200 && status <= 299) return { result: 'delivered' };
  if (status === 429) {
    const after = retryAfterMs(result.retryAfter, now);
    return after === undefined ? { result: 'retry' } : { result: 'retry', retryAfterMs: after };
  }
  if (status >= 500 && status <= 599) return { result: 'retry' };
  // 4xx (other than 429) is the receiver's answer to this request: no retry. Anything else a
  // receiver should not send (1xx, 3xx other than a followed 301/302) is treated the same way.
  return { result: 'final' };
}
