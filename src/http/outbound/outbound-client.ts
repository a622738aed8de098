/**
 * One outbound HTTP exchange under the address policy: the request goes over node:http(s) agents
 * whose `lookup` admits only addresses the policy allows (./policed-lookup.ts), IP literals are
 * checked before anything is sent, the whole exchange has a deadline, and at most
 * `maxResponseBytes` of the body is read (past it the socket is dropped, not drained). Redirects are
 * not followed here: a caller that follows them calls `exchange` again for each hop, which checks
 * that hop's address the same way. Agents may keep sockets alive: a reused socket was checked when
 * it was made.
 */
import http from 'node:http';
import https from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import tls from 'node:tls';
import { NameResolutionError, type NameResolver } from './name-resolver.ts';
import { AddressRefused, literalRefusal, policyLookup } from './policed-lookup.ts';

interface OutboundClientOptions {
  /** Opens loopback (127/8, ::1) and nothing else: for tests' receivers and providers. */
  allowLoopback: boolean;
  /** Whether plain http: URLs may be called (https: always may). */
  allowHttp?: boolean;
  resolve: NameResolver;
  /** Extra trusted CAs (tests); the system store (and NODE_EXTRA_CA_CERTS) is always trusted. */
  ca?: string | Buffer | (string | Buffer)[];
  userAgent: string;
  keepAlive?: boolean;
  /** Sockets kept per origin. */
  maxSocketsPerHost?: number;
}

export interface OutboundRequest {
  method: string;
  headers: Record<string, string>;
  body?: string | Buffer;
  /** `Date.now()` by which the exchange (connect, TLS, whole response) must be over. */
  deadline: number;
  /** How much of the response body is read and kept. */
  maxResponseBytes: number;
  /** Aborts the exchange (reported as a time-out: the caller gave up waiting). */
  signal?: AbortSignal;
}

export type OutboundFailure = 'timeout' | 'dns' | 'tls' | 'connection' | 'address_refused' | 'scheme_refused';

export type OutboundExchange =
  | {
      kind: 'response';
      status: number;
      headers: IncomingHttpHeaders;
      /** Header names and values as received, in order (for a Fetch API `Headers`). */
      rawHeaders: string[];
      body: Buffer;
      /** More body arrived than `maxResponseBytes`: `body` is its beginning only. */
      truncated: boolean;
      /** The whole message arrived (false when the answer broke off, or was cut at the cap). */
      complete: boolean;
    }
  | { kind: 'error'; error: OutboundFailure; message: string };

export interface OutboundClient {
  exchange(url: URL, request: OutboundRequest): Promise<OutboundExchange>;
}

const TLS_CODES = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|SELF_SIGNED|DEPTH_ZERO|HOSTNAME_MISMATCH|ERR_OSSL)/;

function classifyError(error: NodeJS.ErrnoException): { error: OutboundFailure; message: string } {
  if (error instanceof AddressRefused) return { error: 'address_refused', message: error.message };
  if (error instanceof NameResolutionError || error.code === 'ENOTFOUND' || error.code === 'EAI_AGAIN') {
    return { error: 'dns', message: error.message };
  }
  if ((error.code && TLS_CODES.test(error.code)) || /certificate|ssl|tls/i.test(error.message)) {
    return { error: 'tls', message: error.message };
  }
  return { error: 'connection', message: error.message };
}

/** Passing `ca` replaces Node's bundled roots for that agent: keep them beside the extra ones. */
function withSystemRoots(ca: string | Buffer | (string | Buffer)[]): (string | Buffer)[] {
  return [...tls.rootCertificates, ...(Array.isArray(ca) ? ca : [ca])];
}

export function createOutboundClient(options: OutboundClientOptions): OutboundClient {
  const sockets = options.maxSocketsPerHost ?? 50;
  const common = {
    keepAlive: options.keepAlive ?? true,
    maxSockets: sockets,
    maxFreeSockets: sockets,
    lookup: policyLookup(options.resolve, options.allowLoopback),
  };
  const agents = {
    'https:': new https.Agent({ ...common, ...(options.ca ? { ca: withSystemRoots(options.ca) } : {}) }),
    'http:': new http.Agent(common),
  };

  function exchange(url: URL, request: OutboundRequest): Promise<OutboundExchange> {
    return new Promise((resolve) => {
      if (url.protocol !== 'https:' && !(url.protocol === 'http:' && options.allowHttp)) {
        return resolve({ kind: 'error', error: 'scheme_refused', message: `${url.protocol} URLs are not called` });
      }
      const refusal = literalRefusal(url.hostname, options.allowLoopback);
      if (refusal) return resolve({ kind: 'error', error: 'address_refused', message: refusal });
      if (request.signal?.aborted) return resolve({ kind: 'error', error: 'timeout', message: 'the request was abandoned' });
      let settled = false;
      const headers: Record<string, string | number> = { ...request.headers, 'user-agent': options.userAgent };
      if (request.body !== undefined) headers['content-length'] = Buffer.byteLength(request.body);
      const client = url.protocol === 'https:' ? https : http;
      const req = client.request(url, { method: request.method, agent: agents[url.protocol], headers });
      const giveUp = (message: string) => {
        req.destroy();
        finish({ kind: 'error', error: 'timeout', message });
      };
      const timer = setTimeout(() => giveUp('no complete response in time'), Math.max(request.deadline - Date.now(), 1));
      const onAbort = () => giveUp('the request was abandoned');
      request.signal?.addEventListener('abort', onAbort, { once: true });
      const finish = (result: OutboundExchange) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        request.signal?.removeEventListener('abort', onAbort);
        resolve(result);
      };
      req.on('error', (error: NodeJS.ErrnoException) => finish({ kind: 'error', ...classifyError(error) }));
      req.on('response', (response) => {
        const chunks: Buffer[] = [];
        let kept = 0;
        let truncated = false;
        response.on('data', (chunk: Buffer) => {
          if (kept >= request.maxResponseBytes) {
            truncated = true;
            return;
          }
          const part = chunk.subarray(0, request.maxResponseBytes - kept);
          if (part.length < chunk.length) truncated = true;
          chunks.push(part);
          kept += part.length;
          // Past the cap the rest is not worth the time: drop the socket rather than drain it.
          if (kept >= request.maxResponseBytes) response.destroy();
        });
        const done = () =>
          finish({
            kind: 'response',
            status: response.statusCode ?? 0,
            headers: response.headers,
            rawHeaders: response.rawHeaders,
            body: Buffer.concat(chunks),
            truncated,
            complete: response.complete && !truncated,
          });
        response.on('end', done);
        response.on('close', done);
        response.on('error', done);
      });
      req.end(request.body);
    });
  }

  return { exchange };
}
