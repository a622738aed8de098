/**
 * One outbound HTTP exchange under the address policy, over an undici `Agent` (one keep-alive pool of
 * `maxSocketsPerHost` connections per origin). The policy is enforced where it was under node:http(s):
 * undici's connector spreads the agent's `connect` options into `net.connect`/`tls.connect`, so the
 * `lookup` given there (./policed-lookup.ts) resolves each name itself and hands the socket only an
 * address the policy allows; IP literals never reach `lookup` and are checked before anything is sent.
 * The whole exchange has a deadline, and at most `maxResponseBytes` of the body is read (past it the
 * socket is dropped, not drained). Redirects are not followed here: a caller that follows them calls
 * `exchange` again for each hop, which checks that hop's address the same way. Pools keep connections
 * alive: a reused connection was checked when it was made. The response's `headers` are built from
 * the raw header lines the way node:http builds `IncomingMessage.headers`, so callers see the same shape.
 */
import type { IncomingHttpHeaders } from 'node:http';
import tls from 'node:tls';
import { Agent, type Dispatcher } from 'undici';
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
  /** Connections kept per origin. */
  maxSocketsPerHost?: number;
}

interface OutboundRequest {
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

/**
 * A connection attempt that takes longer is given up (undici's default, named here). Each exchange's
 * deadline still ends it sooner; this bounds a connect the deadline has already abandoned, which undici
 * cannot cancel from the request (node:http destroyed the socket with the request).
 */
const CONNECT_TIMEOUT_MS = 10_000;

const TLS_CODES = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|SELF_SIGNED|DEPTH_ZERO|HOSTNAME_MISMATCH|ERR_OSSL)/;

/** The error and its causes, outermost first (undici may wrap what the socket or `lookup` raised). */
function causes(error: unknown): (Error & { code?: unknown })[] {
  const chain: Error[] = [];
  for (let e = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) chain.push(e);
  return chain;
}

function classifyError(error: unknown): { error: OutboundFailure; message: string } {
  const chain = causes(error);
  const refused = chain.find((e) => e instanceof AddressRefused);
  if (refused) return { error: 'address_refused', message: refused.message };
  const dns = chain.find((e) => e instanceof NameResolutionError || e.code === 'ENOTFOUND' || e.code === 'EAI_AGAIN');
  if (dns) return { error: 'dns', message: dns.message };
  const connectTimeout = chain.find((e) => e.code === 'UND_ERR_CONNECT_TIMEOUT');
  if (connectTimeout) return { error: 'timeout', message: connectTimeout.message };
  const tlsError = chain.find((e) => (typeof e.code === 'string' && TLS_CODES.test(e.code)) || /certificate|ssl|tls/i.test(e.message));
  if (tlsError) return { error: 'tls', message: tlsError.message };
  return { error: 'connection', message: chain[0]?.message ?? String(error) };
}

/** Passing `ca` replaces Node's bundled roots for that agent: keep them beside the extra ones. */
function withSystemRoots(ca: string | Buffer | (string | Buffer)[]): (string | Buffer)[] {
  return [...tls.rootCertificates, ...(Array.isArray(ca) ? ca : [ca])];
}

/** Headers of which node:http keeps the first and discards the duplicates (`IncomingMessage.headers`). */
const FIRST_ONLY = new Set([
  'age',
  'authorization',
  'content-length',
  'content-type',
  'etag',
  'expires',
  'from',
  'host',
  'if-modified-since',
  'if-unmodified-since',
  'last-modified',
  'location',
  'max-forwards',
  'proxy-authorization',
  'referer',
  'retry-after',
  'server',
  'user-agent',
]);

/** `IncomingMessage.headers` from raw lines: lower-case names, set-cookie an array, cookie joined by `; `, the rest by `, `. */
function headersOf(rawHeaders: string[]): IncomingHttpHeaders {
  const headers: Record<string, string | string[]> = Object.create(null) as Record<string, string | string[]>;
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!.toLowerCase();
    const value = rawHeaders[i + 1]!;
    if (name === '__proto__') continue; // node:http drops it too
    const existing = headers[name];
    if (name === 'set-cookie') {
      if (existing) (existing as string[]).push(value);
      else headers[name] = [value];
    } else if (existing === undefined) headers[name] = value;
    else if (!FIRST_ONLY.has(name)) headers[name] = `${existing as string}${name === 'cookie' ? '; ' : ', '}${value}`;
  }
  return headers;
}

/**
 * The request's header lines as node:http would send them: one per name whatever its case (a later one
 * replaces an earlier one), then the user agent and the body's length, and Basic credentials from the URL
 * unless an Authorization header was given.
 */
function requestHeaders(url: URL, request: OutboundRequest, userAgent: string): string[] {
  const byName = new Map<string, [string, string]>();
  for (const [name, value] of Object.entries(request.headers)) byName.set(name.toLowerCase(), [name, value]);
  byName.set('user-agent', ['user-agent', userAgent]);
  if (request.body !== undefined) byName.set('content-length', ['content-length', String(Buffer.byteLength(request.body))]);
  if ((url.username || url.password) && !byName.has('authorization')) {
    const credentials = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
    byName.set('authorization', ['Authorization', `Basic ${Buffer.from(credentials).toString('base64')}`]);
  }
  const lines: string[] = [];
  for (const [name, value] of byName.values()) lines.push(name, value);
  return lines;
}

export function createOutboundClient(options: OutboundClientOptions): OutboundClient {
  const agent = new Agent({
    connections: options.maxSocketsPerHost ?? 50,
    // Spread by undici's connector into net.connect / tls.connect (node_modules/undici/lib/core/connect.js).
    connect: {
      lookup: policyLookup(options.resolve, options.allowLoopback),
      timeout: CONNECT_TIMEOUT_MS,
      ...(options.ca ? { ca: withSystemRoots(options.ca) } : {}),
    },
    // The exchange's deadline governs: undici's own header and body time-outs are off.
    headersTimeout: 0,
    bodyTimeout: 0,
  });
  // Without keep-alive each request says `connection: close` and its connection ends with it.
  const reset = options.keepAlive === false;

  function exchange(url: URL, request: OutboundRequest): Promise<OutboundExchange> {
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && options.allowHttp)) {
      return Promise.resolve({ kind: 'error', error: 'scheme_refused', message: `${url.protocol} URLs are not called` });
    }
    const refusal = literalRefusal(url.hostname, options.allowLoopback);
    if (refusal) return Promise.resolve({ kind: 'error', error: 'address_refused', message: refusal });
    if (request.signal?.aborted) return Promise.resolve({ kind: 'error', error: 'timeout', message: 'the request was abandoned' });
    return new Promise((resolve, reject) => {
      let settled = false;
      /** Ends the request and drops its connection; set once the request is on a connection. */
      let abort: ((error?: Error) => void) | undefined;
      let status = 0;
      let rawHeaders: string[] | undefined;
      const chunks: Buffer[] = [];
      let kept = 0;
      let truncated = false;

      const finish = (result: OutboundExchange) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        request.signal?.removeEventListener('abort', onAbort);
        resolve(result);
      };
      const respond = (complete: boolean) =>
        finish({
          kind: 'response',
          status,
          headers: headersOf(rawHeaders!),
          rawHeaders: rawHeaders!,
          body: Buffer.concat(chunks),
          truncated,
          complete: complete && !truncated,
        });
      // A request still waiting for its connection is ended when it gets one (onConnect).
      const giveUp = (message: string) => {
        finish({ kind: 'error', error: 'timeout', message });
        abort?.();
      };
      const timer = setTimeout(() => giveUp('no complete response in time'), Math.max(request.deadline - Date.now(), 1));
      const onAbort = () => giveUp('the request was abandoned');
      request.signal?.addEventListener('abort', onAbort, { once: true });

      // No handler throws: undici would report it as an error of the pool.
      const handler: Dispatcher.DispatchHandlers = {
        onConnect(abortRequest) {
          abort = abortRequest;
          if (settled) abortRequest();
        },
        onHeaders(statusCode, headers) {
          if (statusCode < 200) return true; // an interim answer (1xx): the final one follows
          status = statusCode;
          rawHeaders = headers.map((b) => b.toString('latin1'));
          return true;
        },
        onData(chunk) {
          const part = chunk.subarray(0, request.maxResponseBytes - kept);
          if (part.length < chunk.length) truncated = true;
          chunks.push(part);
          kept += part.length;
          if (truncated) {
            // Past the cap the rest is not worth the time: drop the connection rather than drain it.
            respond(false);
            abort?.();
            return false;
          }
          // Exactly at the cap: the message may end in what has been read (onComplete, before this
          // microtask); if it does not, it is cut here.
          if (kept >= request.maxResponseBytes) {
            queueMicrotask(() => {
              respond(false);
              abort?.();
            });
          }
          return true;
        },
        onComplete() {
          respond(true);
        },
        onError(error) {
          if (settled) return;
          // A request undici refused to build (a header it does not send): node:http threw for those.
          if ((error as { code?: string }).code === 'UND_ERR_INVALID_ARG') {
            settled = true;
            clearTimeout(timer);
            request.signal?.removeEventListener('abort', onAbort);
            reject(error);
          } else if (rawHeaders) respond(false);
          else finish({ kind: 'error', ...classifyError(error) });
        },
      };
      agent.dispatch(
        {
          origin: url.origin,
          path: url.pathname + url.search,
          method: request.method as Dispatcher.HttpMethod,
          headers: requestHeaders(url, request, options.userAgent),
          body: request.body ?? null,
          reset,
        },
        handler,
      );
    });
  }

  return { exchange };
}
