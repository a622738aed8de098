/**
 * When a failed delivery is tried again (interface document, "Retry schedule"): 8 attempts in all;
 * the delay before attempt n+1 is WEBHOOK_RETRY_DELAYS_MS[n-1] (a shorter list repeats its last
 * value), spread by ±10 % jitter so that the retries of one outage do not all return at once,
 * and never more than 24 hours. A 429's Retry-After replaces the delay (within the same cap).
 */
const MAX_ATTEMPTS = 8;
const RETRY_DELAY_CAP_MS = 24 * 3600 * 1000;
const JITTER = 0.1;

/** The delay after failed attempt `attempt` (1-based), or null when it was the last one. */
export function retryDelayMs(
  attempt: number,
  delaysMs: readonly number[],
  options: { retryAfterMs?: number; random?: () => number } = {},
): number | null {
  if (attempt >= MAX_ATTEMPTS) return null;
  if (options.retryAfterMs !== undefined) return Math.min(options.retryAfterMs, RETRY_DELAY_CAP_MS);
  const base = delaysMs[Math.min(attempt - 1, delaysMs.length - 1)] ?? 0;
  const spread = 1 + JITTER * (2 * (options.random ?? Math.random)() - 1);
  return Math.min(Math.round(base * spread), RETRY_DELAY_CAP_MS);
}
