/**
 * The HTTP side of a webhook delivery: one POST over https, following 301/302 redirects, through the
 * shared outbound client (src/http/outbound/), which enforces the address policy on the address
 * actually dialled: a name that resolved to a public address at registration and to a private one
 * now (DNS rebinding) is refused at the connection, and so is every redirect hop, each of which is
 * an exchange of its own. Keep-alive agents are reused across deliveries: a reused socket was
 * checked when it was made.
 */
import { createOutboundClient, type OutboundExchange } from '../../http/outbound/outbound-client.ts';
import type { NameResolver } from '../../http/outbound/name-resolver.ts';

interface TransportOptions {
  timeoutMs: number;
  /** Opens loopback (WEBHOOK_ALLOW_PRIVATE_TARGETS); every other internal range stays refused. */
  allowPrivateTargets: boolean;
  resolve: NameResolver;
  /** Extra trusted CAs (tests); the system store (and NODE_EXTRA_CA_CERTS) is always trusted. */
  ca?: string | Buffer | (string | Buffer)[];
  maxRedirects?: number;
  /** How much of a response body is read and kept (the attempts log shows it); the rest is dropped. */
  maxResponseBytes?: number;
  userAgent: string;
  /** Sockets kept per receiver origin. */
  maxSocketsPerHost?: number;
}

interface OutboundRequest {
  url: string;
  body: string;
  headers: Record<string, string>;
}

/** Why no usable response arrived; `signing`: the request was not sent, its secret did not open. */
type TransportError = 'timeout' | 'dns' | 'tls' | 'connection' | 'address_refused' | 'redirect_limit' | 'redirect_invalid' | 'signing';

export type TransportResult =
  | { kind: 'response'; status: number; retryAfter?: string; body: string; durationMs: number; redirects: number }
  | { kind: 'error'; error: TransportError; message: string; durationMs: number };

const DEFAULT_MAX_REDIRECTS = 3;
const DEFAULT_MAX_RESPONSE_BYTES = 16 * 1024;

type HopResult = (OutboundExchange & { kind: 'response' }) | { kind: 'error'; error: TransportError; message: string };

export function createTransport(options: TransportOptions): (request: OutboundRequest) => Promise<TransportResult> {
  const maxRedirects = options.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
  const maxBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const client = createOutboundClient({
    allowLoopback: options.allowPrivateTargets,
    resolve: options.resolve,
    userAgent: options.userAgent,
    ...(options.maxSocketsPerHost ? { maxSocketsPerHost: options.maxSocketsPerHost } : {}),
    ...(options.ca ? { ca: options.ca } : {}),
  });

  /** One hop: the signed POST to `url`, its error named as the outcomes table names it. */
  async function hop(url: URL, request: OutboundRequest, deadline: number): Promise<HopResult> {
    const result = await client.exchange(url, {
      method: 'POST',
      headers: request.headers,
      body: request.body,
      deadline,
      maxResponseBytes: maxBytes,
    });
    if (result.kind === 'response') return result;
    switch (result.error) {
      case 'timeout':
        return { kind: 'error', error: 'timeout', message: `no complete response within ${options.timeoutMs} ms` };
      // Only https URLs are registered and followed (checked before each hop): this is a safety net.
      case 'scheme_refused':
        return { kind: 'error', error: 'redirect_invalid', message: result.message };
      default:
        return { kind: 'error', error: result.error, message: result.message };
    }
  }

  return async (request) => {
    const started = performance.now();
    const deadline = Date.now() + options.timeoutMs;
    const elapsed = () => Math.round(performance.now() - started);
    let url: URL;
    try {
      url = new URL(request.url);
    } catch {
      return { kind: 'error', error: 'redirect_invalid', message: `not a URL: ${request.url}`, durationMs: 0 };
    }
    for (let redirects = 0; ; redirects++) {
      const result = await hop(url, request, deadline);
      if (result.kind === 'error') return { ...result, durationMs: elapsed() };
      const { status, headers } = result;
      if (status === 301 || status === 302) {
        if (redirects >= maxRedirects) {
          return { kind: 'error', error: 'redirect_limit', message: `more than ${maxRedirects} redirects`, durationMs: elapsed() };
        }
        const location = headers.location;
        let next: URL | undefined;
        try {
          next = location ? new URL(location, url) : undefined;
        } catch {
          next = undefined;
        }
        if (!next || next.protocol !== 'https:') {
          return {
            kind: 'error',
            error: 'redirect_invalid',
            message: `redirect to ${location ?? '(no Location)'} is not an https URL`,
            durationMs: elapsed(),
          };
        }
        url = next;
        continue;
      }
      const retryAfter = headers['retry-after'];
      return {
        kind: 'response',
        status,
        ...(retryAfter ? { retryAfter } : {}),
        body: result.body.toString('utf8'),
        durationMs: elapsed(),
        redirects,
      };
    }
  };
}
