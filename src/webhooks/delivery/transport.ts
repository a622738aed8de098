/**
 * The HTTP side of a webhook delivery: one POST over node:https, following 301/302 redirects, with
 * the address policy enforced on the address actually dialled. `fetch` gives no hook on that
 * address; here the agent's `lookup` resolves the name itself (NameResolver) and hands the socket
 * only an address the policy allows, so a name that resolved to a public address at registration
 * and to a private one now (DNS rebinding) is refused at the connection, and so is every redirect
 * hop. Keep-alive agents are reused across deliveries: a reused socket was checked when it was made.
 */
import https from 'node:https';
import type { IncomingMessage } from 'node:http';
import type { LookupFunction } from 'node:net';
import tls from 'node:tls';
import { addressRefusal } from '../address-policy.ts';
import { NameResolutionError, type NameResolver } from '../name-resolver.ts';

export interface TransportOptions {
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

export interface OutboundRequest {
  url: string;
  body: string;
  headers: Record<string, string>;
}

export type TransportError = 'timeout' | 'dns' | 'tls' | 'connection' | 'address_refused' | 'redirect_limit' | 'redirect_invalid';

export type TransportResult =
  | { kind: 'response'; status: number; retryAfter?: string; body: string; durationMs: number; redirects: number }
  | { kind: 'error'; error: TransportError; message: string; durationMs: number };

export const DEFAULT_MAX_REDIRECTS = 3;
export const DEFAULT_MAX_RESPONSE_BYTES = 16 * 1024;

/** The policy refused every address a name resolved to: no connection was made. */
class AddressRefused extends Error {
  readonly code = 'EADDRREFUSED_POLICY';
}

/** A `lookup` for the agent: resolve, keep only allowed addresses, dial the first of them. */
function policyLookup(resolve: NameResolver, allowPrivateTargets: boolean): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname).then(
      (addresses) => {
        const family = typeof options === 'object' ? options.family : options;
        const candidates = addresses.filter((a) => !family || a.family === family);
        const allowed = candidates.filter((a) => addressRefusal(a.address, allowPrivateTargets) === null);
        if (allowed.length === 0) {
          const refused = candidates[0] ?? addresses[0];
          const reason = refused ? addressRefusal(refused.address, allowPrivateTargets)! : `${hostname} has no usable address`;
          callback(new AddressRefused(reason), '', 4);
          return;
        }
        // A name with both allowed and refused addresses is refused as a whole: it is a rebinding setup.
        if (allowed.length !== candidates.length) {
          const bad = candidates.find((a) => addressRefusal(a.address, allowPrivateTargets) !== null)!;
          callback(new AddressRefused(addressRefusal(bad.address, allowPrivateTargets)!), '', 4);
          return;
        }
        const chosen = allowed[0]!;
        if (typeof options === 'object' && options.all) {
          (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [chosen]);
        } else callback(null, chosen.address, chosen.family);
      },
      (error: unknown) => callback(error as NodeJS.ErrnoException, '', 4),
    );
  };
}

const TLS_CODES = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|SELF_SIGNED|DEPTH_ZERO|HOSTNAME_MISMATCH|ERR_OSSL)/;

function classifyError(error: NodeJS.ErrnoException): { error: TransportError; message: string } {
  if (error instanceof AddressRefused) return { error: 'address_refused', message: error.message };
  if (error instanceof NameResolutionError || error.code === 'ENOTFOUND' || error.code === 'EAI_AGAIN') {
    return { error: 'dns', message: error.message };
  }
  if ((error.code && TLS_CODES.test(error.code)) || /certificate|ssl|tls/i.test(error.message)) {
    return { error: 'tls', message: error.message };
  }
  return { error: 'connection', message: error.message };
}

interface HopResult {
  response?: IncomingMessage;
  body?: string;
  error?: { error: TransportError; message: string };
}

export function createTransport(options: TransportOptions): (request: OutboundRequest) => Promise<TransportResult> {
  const maxRedirects = options.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
  const maxBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const agent = new https.Agent({
    keepAlive: true,
    maxSockets: options.maxSocketsPerHost ?? 50,
    maxFreeSockets: options.maxSocketsPerHost ?? 50,
    lookup: policyLookup(options.resolve, options.allowPrivateTargets),
    ...(options.ca ? { ca: withSystemRoots(options.ca) } : {}),
  });

  function hop(url: URL, request: OutboundRequest, deadline: number): Promise<HopResult> {
    return new Promise((resolve) => {
      // IP literals never go through `lookup`: check them here.
      const literal = url.hostname.replace(/^\[|\]$/g, '');
      if (/^[\d.]+$|:/.test(literal)) {
        const refusal = addressRefusal(literal, options.allowPrivateTargets);
        if (refusal) return resolve({ error: { error: 'address_refused', message: refusal } });
      }
      let settled = false;
      const req = https.request(url, {
        method: 'POST',
        agent,
        headers: { ...request.headers, 'user-agent': options.userAgent, 'content-length': Buffer.byteLength(request.body) },
      });
      const timer = setTimeout(
        () => {
          req.destroy();
          finish({ error: { error: 'timeout', message: `no complete response within ${options.timeoutMs} ms` } });
        },
        Math.max(deadline - Date.now(), 1),
      );
      const finish = (result: HopResult) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(result);
      };
      req.on('error', (error: NodeJS.ErrnoException) => finish({ error: classifyError(error) }));
      req.on('response', (response) => {
        const chunks: Buffer[] = [];
        let kept = 0;
        response.on('data', (chunk: Buffer) => {
          if (kept >= maxBytes) return;
          const part = chunk.subarray(0, maxBytes - kept);
          chunks.push(part);
          kept += part.length;
          // Past the cap the rest is not worth the time: drop the socket rather than drain it.
          if (kept >= maxBytes) response.destroy();
        });
        const done = () => finish({ response, body: Buffer.concat(chunks).toString('utf8') });
        response.on('end', done);
        response.on('close', done);
        response.on('error', done);
      });
      req.end(request.body);
    });
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
      if (result.error) return { kind: 'error', ...result.error, durationMs: elapsed() };
      const response = result.response!;
      const status = response.statusCode ?? 0;
      if (status === 301 || status === 302) {
        if (redirects >= maxRedirects) {
          return { kind: 'error', error: 'redirect_limit', message: `more than ${maxRedirects} redirects`, durationMs: elapsed() };
        }
        const location = response.headers.location;
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
      const retryAfter = response.headers['retry-after'];
      return {
        kind: 'response',
        status,
        ...(retryAfter ? { retryAfter } : {}),
        body: result.body ?? '',
        durationMs: elapsed(),
        redirects,
      };
    }
  };
}

/** Passing `ca` replaces Node's bundled roots for that agent: keep them beside the extra ones. */
function withSystemRoots(ca: string | Buffer | (string | Buffer)[]): (string | Buffer)[] {
  return [...tls.rootCertificates, ...(Array.isArray(ca) ? ca : [ca])];
}
