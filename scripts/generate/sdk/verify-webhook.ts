/**
 * Verifies a webhook delivery the way the interface document's receiver rules say:
 * 1. reject when |now - X-Webhook-Timestamp| exceeds the tolerance (300 s by default);
 * 2. recompute HMAC-SHA256 over `<timestamp>.<raw body>` and compare in constant time;
 * 3. accept when any one of the comma-separated `v1=` values matches any of the secrets given
 *    (during a rotation the sender signs with two secrets; a receiver may hold two as well).
 * Pass the raw body exactly as received (before any JSON parsing). It never throws on bad input:
 * every refusal is a result with a reason. Uses node:crypto only.
 *
 * The event is typed, by default, as `WebhookEvent`: the union of the catalog's event types (the
 * `webhooks` section of openapi/webhooks.yaml), discriminated by `type`, with fat bodies; an endpoint
 * registered with `payload: thin` passes `ThinWebhookEvent`. `parseEvent` types a body verified
 * elsewhere the same way.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** The catalog's union of event types: generated into generated/client/webhooks.ts in place of this line. */
// The placeholder keeps this file checkable on its own.
type WebhookEvent = { type: string };

/** Node's IncomingHttpHeaders, a fetch Headers object, or a plain record (any header case). */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export interface VerifyOptions {
  /** Largest accepted distance between the signature time and now, in seconds (default 300). */
  toleranceSeconds?: number;
  /** Now, in milliseconds since the epoch (tests). */
  now?: number;
}

export type VerifyFailure = 'missing_headers' | 'invalid_timestamp' | 'timestamp_out_of_tolerance' | 'no_valid_signature' | 'invalid_body';

export type VerifyResult<Event> = { ok: true; id: string; timestamp: number; event: Event } | { ok: false; reason: VerifyFailure };

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(record).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? value.join(',') : value;
}

export function verifyWebhook<Event = WebhookEvent>(
  rawBody: string | Uint8Array,
  headers: WebhookHeaders,
  secrets: string | readonly string[],
  options: VerifyOptions = {},
): VerifyResult<Event> {
  const id = header(headers, 'x-webhook-id');
  const timestampText = header(headers, 'x-webhook-timestamp');
  const signatures = header(headers, 'x-webhook-signature');
  if (!id || !timestampText || !signatures) return { ok: false, reason: 'missing_headers' };
  if (!/^\d{1,15}$/.test(timestampText.trim())) return { ok: false, reason: 'invalid_timestamp' };
  const timestamp = Number(timestampText.trim());
  const now = (options.now ?? Date.now()) / 1000;
  if (Math.abs(now - timestamp) > (options.toleranceSeconds ?? 300)) return { ok: false, reason: 'timestamp_out_of_tolerance' };

  const body = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : Buffer.from(rawBody);
  const given = signatures
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part.startsWith('v1='))
    .map((part) => Buffer.from(part.slice(3), 'utf8'));
  const keys: readonly string[] = typeof secrets === 'string' ? [secrets] : secrets;
  const matches = keys.some((secret) => {
    const expected = Buffer.from(createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex'), 'utf8');
    // Every candidate is compared, equal lengths only, in constant time.
    return given.reduce(
      (found, candidate) => (candidate.length === expected.length && timingSafeEqual(candidate, expected)) || found,
      false,
    );
  });
  if (!matches) return { ok: false, reason: 'no_valid_signature' };
  try {
    return { ok: true, id, timestamp, event: JSON.parse(body.toString('utf8')) as Event };
  } catch {
    return { ok: false, reason: 'invalid_body' };
  }
}

/**
 * The event of a raw body, typed like `verifyWebhook`'s, without verifying anything: for receivers
 * whose signature check runs elsewhere (a gateway, a framework middleware). Throws a SyntaxError on
 * a body that is not JSON; it does not check the body against the catalog's schemas.
 */
export function parseEvent<Event = WebhookEvent>(rawBody: string | Uint8Array): Event {
  return JSON.parse(typeof rawBody === 'string' ? rawBody : Buffer.from(rawBody).toString('utf8')) as Event;
}
