/**
 * The sender's half of webhook signing (interface document, "Webhook signing"): the HMAC-SHA256 of
 * `<timestamp>.<raw body>` keyed with each active secret, lowercase hex, as comma-separated `v1=`
 * values (two during a rotation's overlap). Receivers verify with `verifyWebhook` from the SDK.
 */
import { createHmac } from 'node:crypto';

function signatureOf(secret: string, timestamp: number, body: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
}

/** The X-Webhook-Signature value: one `v1=` per secret, the current secret first. */
export function signatureHeader(secrets: readonly string[], timestamp: number, body: string): string {
  return secrets.map((secret) => `v1=${signatureOf(secret, timestamp, body)}`).join(',');
}
