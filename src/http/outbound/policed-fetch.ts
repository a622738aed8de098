/**
 * A Fetch API-shaped function over the outbound client (./outbound-client.ts), for code that wants a
 * `Response` and for libraries that take a custom fetch (openid-client's and jose's `customFetch`):
 * every request it makes is dialled under the address policy, with a time-out and a cap on the body.
 * Redirects are never followed: a 3xx comes back as it came (what `redirect: 'manual'`, which those
 * libraries ask for, means), and the caller refuses it. A failure is an `OutboundError` whose message
 * names the kind of failure only, never an address, a status text or a byte of what answered.
 */
import type { OutboundClient, OutboundFailure } from './outbound-client.ts';

type OutboundErrorKind = OutboundFailure | 'too_large';

/** Why an outbound request got no usable answer. `detail` is for logs, never for the caller's client. */
export class OutboundError extends Error {
  constructor(
    readonly kind: OutboundErrorKind,
    readonly detail: string,
  ) {
    super(
      kind === 'address_refused' || kind === 'scheme_refused'
        ? 'address refused'
        : kind === 'too_large'
          ? 'the answer is larger than allowed'
          : 'no answer',
    );
    this.name = 'OutboundError';
  }
}

/** The first OutboundError in an error's `cause` chain (libraries wrap what a custom fetch throws). */
export function outboundErrorIn(error: unknown): OutboundError | null {
  for (let e = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (e instanceof OutboundError) return e;
  }
  return null;
}

interface PolicedFetchInit {
  method?: string;
  headers?: Headers | Record<string, string> | [string, string][];
  body?: string | URLSearchParams | ArrayBuffer | Uint8Array | ReadableStream | null;
  signal?: AbortSignal | null;
  /** Accepted for the libraries' sake; redirects are never followed whatever it says. */
  redirect?: string;
}

export type PolicedFetch = (url: string | URL, init?: PolicedFetchInit) => Promise<Response>;

interface PolicedFetchOptions {
  timeoutMs: number;
  /** A larger body is refused (OutboundError `too_large`), not cut short. */
  maxResponseBytes: number;
}

/** Statuses whose Response may carry no body (the Response constructor throws otherwise). */
const NULL_BODY = new Set([204, 205, 304]);

function bodyOf(body: PolicedFetchInit['body']): string | Buffer | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return body;
  if (body instanceof URLSearchParams) return body.toString();
  if (body instanceof ArrayBuffer) return Buffer.from(body);
  if (body instanceof Uint8Array) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  throw new TypeError('a streamed request body is not supported');
}

export function createPolicedFetch(client: OutboundClient, options: PolicedFetchOptions): PolicedFetch {
  return async (url, init = {}) => {
    const headers = new Headers(init.headers);
    if (init.body instanceof URLSearchParams && !headers.has('content-type')) {
      headers.set('content-type', 'application/x-www-form-urlencoded;charset=UTF-8');
    }
    // Node's client does not decompress, and a Response built here must hold the body as sent.
    headers.set('accept-encoding', 'identity');
    const body = bodyOf(init.body);
    const result = await client.exchange(new URL(url), {
      method: init.method ?? 'GET',
      headers: Object.fromEntries(headers),
      ...(body !== undefined ? { body } : {}),
      deadline: Date.now() + options.timeoutMs,
      // One byte over the cap tells a body of exactly the cap from a larger one.
      maxResponseBytes: options.maxResponseBytes + 1,
      ...(init.signal ? { signal: init.signal } : {}),
    });
    if (result.kind === 'error') throw new OutboundError(result.error, result.message);
    if (result.truncated || result.body.length > options.maxResponseBytes) {
      throw new OutboundError('too_large', `more than ${options.maxResponseBytes} bytes`);
    }
    if (!result.complete) throw new OutboundError('connection', 'the answer broke off');
    if (result.status < 200 || result.status > 599) throw new OutboundError('connection', `status ${result.status}`);
    const responseHeaders = new Headers();
    for (let i = 0; i + 1 < result.rawHeaders.length; i += 2) responseHeaders.append(result.rawHeaders[i]!, result.rawHeaders[i + 1]!);
    const nullBody = NULL_BODY.has(result.status) || init.method === 'HEAD';
    return new Response(nullBody ? null : result.body, { status: result.status, headers: responseHeaders });
  };
}
