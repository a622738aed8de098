/**
 * The request one attempt sends: the event's body (rendered once per event: ./rendered-bodies.ts),
 * its id and timestamp, and the signature over them with the endpoint's secrets (two during a
 * rotation's overlap).
 */
import type { SecretBox } from '../../auth/secret-box.ts';
import { openEndpointSecret } from '../endpoint-secrets.ts';
import { signatureHeader } from '../signature.ts';
import type { ClaimedDelivery } from './queue.repository.ts';
import { createRenderedBodies } from './rendered-bodies.ts';

interface SignedRequest {
  url: string;
  body: string;
  headers: Record<string, string>;
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
    const current = open(d.endpoint_id, d.secret);
    if (!overlap) return [current];
    try {
      return [current, open(d.endpoint_id, d.previous_secret!)];
    } catch {
      // Rotated away from a secret that no longer opens (SECRETS_KEY changed): the new one signs alone.
      return [current];
    }
  };
}

/** Signs each delivery's request as of `now` (its timestamp, and whether a previous secret still signs). */
export function createRequestSigner(baseUrl: string, box: SecretBox): (d: ClaimedDelivery, now: Date) => SignedRequest {
  const bodyOf = createRenderedBodies(baseUrl);
  const signingSecrets = createSigningSecrets(box);
  return (d, now) => {
    const body = bodyOf(d);
    const timestamp = Math.floor(now.getTime() / 1000);
    const headers = {
      'content-type': 'application/json',
      'x-webhook-id': d.event_id,
      'x-webhook-timestamp': String(timestamp),
      'x-webhook-signature': signatureHeader(signingSecrets(d, now), timestamp, body),
    };
    return { url: d.url, body, headers };
  };
}
