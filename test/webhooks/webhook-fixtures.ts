/**
 * What the webhook tests share: a server with the delivery worker on and the receivers' test CA
 * trusted, endpoint registration through the API, and a receiver-side check of a delivery's
 * headers and signature written from the interface document (not with the server's own code).
 */
import { createHmac } from 'node:crypto';
import type { Test } from 'tap';
import { startServer, type TestServer } from '../helpers/server.ts';
import { bearer, dataOf } from '../helpers/typed-client.ts';
import { testCa, type ReceivedRequest } from '../helpers/webhook-receiver.ts';
import type { components } from '../../generated/openapi/webhooks.ts';

export interface WebhookServer extends TestServer {
  admin_token: string;
}

/** Scaled-down timing so a retry schedule runs in about a second. */
export const FAST_WEBHOOKS = {
  WEBHOOK_WORKER: 'on',
  WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
  WEBHOOK_RETRY_DELAYS_MS: '100,150,200,250,300,350,400',
  WEBHOOK_TIMEOUT_MS: '1500',
};

export async function startWebhookServer(t: Test, env: Record<string, string> = {}): Promise<WebhookServer> {
  const server = await startServer(t, { env: { ...FAST_WEBHOOKS, ...env }, webhookCa: (await testCa()).cert });
  return Object.assign(server, { admin_token: await server.token('webhook-admin', ['ADMIN']) });
}

export interface RegisterOptions {
  events?: components['schemas']['SubscribedEvent'][];
  payload?: 'fat' | 'thin';
  secret?: string;
}

export async function registerEndpoint(server: WebhookServer, url: string, options: RegisterOptions = {}) {
  return dataOf(
    201,
    server.webhooks.POST('/api/webhooks', {
      body: {
        url,
        events: options.events ?? ['*'],
        payload: options.payload ?? 'fat',
        ...(options.secret ? { secret: options.secret } : {}),
      },
      headers: bearer(server.admin_token),
    }),
  );
}

/** The receiver's side of the signing rules: every `v1=` value is the HMAC of `<timestamp>.<raw body>`. */
export function signaturesOf(request: ReceivedRequest): string[] {
  return String(request.headers['x-webhook-signature'] ?? '')
    .split(',')
    .map((part) => part.trim().replace(/^v1=/, ''));
}

export function expectedSignature(secret: string, request: ReceivedRequest): string {
  return createHmac('sha256', secret)
    .update(`${String(request.headers['x-webhook-timestamp'])}.${request.rawBody}`)
    .digest('hex');
}

export function envelopeOf(request: ReceivedRequest): {
  id: string;
  type: string;
  created_at: string;
  api_version: string;
  sequence?: number;
  data: { object?: Record<string, unknown>; previous_attributes?: Record<string, unknown>; object_id?: string; object_type?: string };
} {
  return JSON.parse(request.rawBody) as ReturnType<typeof envelopeOf>;
}

/** Polls until `check` returns a value (not undefined), or fails after `timeoutMs`. */
export async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs = 10_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
