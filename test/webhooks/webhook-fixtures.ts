/**
 * What the webhook tests share: a server with the delivery worker on and the receivers' test CA
 * trusted, endpoint registration through the API, and a receiver-side check of a delivery's
 * headers and signature written from the interface document (not with the server's own code).
 */
import { createHmac } from 'node:crypto';
import type { Test } from 'tap';
import { startServer, type StartOptions, type TestServer } from '../helpers/server.ts';
import { bearer, dataOf } from '../helpers/typed-client.ts';
import { testCa, type ReceivedRequest } from '../helpers/webhook-receiver.ts';
import type { components } from '../../generated/openapi/webhooks.ts';

export interface WebhookServer extends TestServer {
  admin_token: string;
}

/** Scaled-down timing so a retry schedule runs in about a second. */
const FAST_WEBHOOKS = {
  WEBHOOK_WORKER: 'on',
  WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
  WEBHOOK_RETRY_DELAYS_MS: '100,150,200,250,300,350,400',
  WEBHOOK_TIMEOUT_MS: '1500',
};

export async function startWebhookServer(
  t: Test,
  env: Record<string, string> = {},
  options: Pick<StartOptions, 'webhookNotifier'> = {},
): Promise<WebhookServer> {
  const server = await startServer(t, { ...options, env: { ...FAST_WEBHOOKS, ...env }, webhookCa: (await testCa()).cert });
  return Object.assign(server, { admin_token: await server.token('webhook-admin', ['ADMIN']) });
}

interface RegisterOptions {
  events?: components['schemas']['SubscribedEvent'][];
  payload?: 'fat' | 'thin';
  secret?: string;
  /** The endpoint's own rate_limit_per_second; the server default when left out. */
  rateLimitPerSecond?: number;
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
        ...(options.rateLimitPerSecond !== undefined ? { rate_limit_per_second: options.rateLimitPerSecond } : {}),
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

/** The delivery rows of an endpoint, oldest event first (state, attempts). */
export async function deliveriesOf(server: TestServer, endpointId: string) {
  return server.database.db
    .selectFrom('webhook_deliveries')
    .select(['id', 'event_id', 'state', 'attempts', 'event_position'])
    .where('endpoint_id', '=', endpointId)
    .orderBy('event_position')
    .orderBy('created_at')
    .execute();
}

/** Queues a sample event of `type` for the endpoint (POST /test) and returns its event id. */
export async function sendTest(
  server: WebhookServer,
  endpointId: string,
  type: components['schemas']['EventType'] = 'order.created',
): Promise<string> {
  const queued = await dataOf(
    202,
    server.webhooks.POST('/api/webhooks/{endpointId}/test', {
      params: { path: { endpointId } },
      body: { event_type: type },
      headers: bearer(server.admin_token),
    }),
  );
  return queued.event_id;
}

/** The endpoint's attempts, oldest first. */
export async function attemptsOf(server: WebhookServer, endpointId: string) {
  const page = await dataOf(
    200,
    server.webhooks.GET('/api/webhooks/{endpointId}/attempts', {
      params: { path: { endpointId }, query: { limit: 100 } },
      headers: bearer(server.admin_token),
    }),
  );
  return page.data.reverse();
}
