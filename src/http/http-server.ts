/**
 * The root Fastify instance every area plugin is registered in: server options, the request id on
 * every reply, Problem Details for errors no scope answers itself, and 404/405 for unrouted requests
 * (unrouted.ts). It knows no area; src/app.ts registers them.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import Fastify, { LogController, type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Config } from '../config.ts';
import { AppError, RateLimited } from '../errors.ts';
import { respondToClientError } from './client-errors.ts';
import { useBoundedJsonBodies } from './json-body.ts';
import { lingerBeforeClosing } from './lingering-close.ts';
import { MAX_PATH_SEGMENT } from './path-limits.ts';
import { problem, toProblem } from './problem.ts';
import { answerUnroutedRequests } from './unrouted.ts';
import { loggerOptions } from '../logger-options.ts';
import type { ErrorRenderer, RawErrorRenderer } from './fastify-types.ts';
import { lazySerializerFactory } from './lazy-serializers.ts';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * One access line per request, when the answer is out: the request (as loggedRequest shows it), the
 * status and the time to answer in milliseconds, under the request id. Fastify's default writes two
 * ("incoming request", then "request completed" without the request); its other lines (errors,
 * streams cut short) stay as they are.
 */
class AccessLog extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const line = { req: request, res: reply, responseTime: reply.elapsedTime };
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else reply.log.info(line, 'request completed');
  }
}

/**
 * A request as the log shows it. Sign-in URLs carry credentials in their query (an OpenID Connect
 * callback's `code` and `state`, SAML's `SAMLRequest`/`SAMLResponse` in the redirect binding), so
 * under /auth/ and /saml/ the query is left out. Bodies are never logged.
 */
export function loggedRequest(request: FastifyRequest) {
  const [path, query] = request.url.split('?', 2) as [string, string | undefined];
  const secret = query !== undefined && (path.startsWith('/auth/') || path.startsWith('/saml/'));
  return {
    method: request.method,
    url: secret ? `${path}?[redacted]` : request.url,
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}

/** An error as Problem Details (401 with its `WWW-Authenticate` challenge); the default of every scope. */
export function sendProblem(error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const body = toProblem(error, request.url);
  if (body.status === 503) {
    request.log.warn({ err: error }, 'request refused: the database cannot be reached');
    reply.header('Retry-After', '1');
  } else if (body.status >= 500) request.log.error({ err: error }, 'request failed');
  // Refused before its body has arrived (an upload over the limit): the connection is closed after the
  // answer instead of reading the rest only to throw it away, which would also hold a shutdown up
  // until the keep-alive timeout; closed gently, so that the client reads the answer (lingering-close.ts).
  if (!request.raw.complete) {
    reply.header('Connection', 'close');
    lingerBeforeClosing(request.raw);
  }
  if (body.status === 401) reply.header('WWW-Authenticate', 'Bearer');
  if (error instanceof RateLimited) reply.header('Retry-After', String(error.retryAfterS));
  return reply.code(body.status).type('application/problem+json').send(body);
}

/**
 * Makes Fastify's refusals before routing of requests under `prefix` (a path prefix such as
 * `/scim/v2`) answered by `render` instead of Problem Details: routing has not chosen a scope yet, so
 * the scope's own error handler cannot see them. `app` may be any scope; the list is the root's.
 */
export function renderFrameworkErrorsUnder(app: FastifyInstance, prefix: string, render: ErrorRenderer, raw: RawErrorRenderer): void {
  app.frameworkErrorRenderers.push({ prefix, render, raw });
}

/** Fastify's refusals before routing (bad URL encoding, overlong path segment) as Problem Details. */
function answerFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const path = request.url.split('?')[0]!;
  const own = request.server.frameworkErrorRenderers.find((r) => path === r.prefix || path.startsWith(`${r.prefix}/`));
  if (own) {
    own.render(error, request, reply.header('X-Request-Id', request.id));
    return;
  }
  const body = toProblem(error, request.url);
  if (body.status >= 500) request.log.error({ err: error }, 'request failed before routing');
  reply.code(body.status).header('X-Request-Id', request.id).type('application/problem+json').send(body);
}

/**
 * RFC 9112 §3.2: an HTTP/1.1 request without a Host header, or with more than one, is a 400. An
 * error, not a reply, so that each area answers in its own format.
 */
function hostHeaderError(request: FastifyRequest): AppError | undefined {
  const raw = request.raw.rawHeaders;
  let hosts = 0;
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.length === 4 && raw[i]!.toLowerCase() === 'host') hosts++;
  if (hosts === 1 || (hosts === 0 && request.raw.httpVersion === '1.0')) return undefined;
  return new AppError(
    'VALIDATION',
    hosts ? 'The request has more than one Host header' : 'The request has no Host header',
    'MALFORMED_REQUEST',
  );
}

/** TRUST_PROXY as a hop count: the `hops` nearest addresses of the forwarding chain are proxies. */
function trustHops(hops: number): (address: string, hop: number) => boolean {
  return (_address, hop) => hop < hops;
}

export function createHttpServer(config: Config): FastifyInstance {
  const http = Fastify({
    // At level silent nothing is ever written, yet Fastify would still build a child logger for every
    // request; without a logger it uses a no-op one, and app.log / request.log keep working.
    logger: config.logLevel === 'silent' ? false : { ...loggerOptions(config), serializers: { req: loggedRequest } },
    requestIdHeader: false,
    logController: new AccessLog(),
    // Accept a caller's request id only when it is a sane token; otherwise mint one.
    genReqId: (req) => {
      const incoming = req.headers['x-request-id'];
      return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    },
    // request.ip (logs, sign-in budgets) is X-Forwarded-For's client only behind the proxies named here.
    trustProxy: typeof config.trustProxy === 'number' ? trustHops(config.trustProxy) : config.trustProxy,
    return503OnClosing: true,
    routerOptions: { maxParamLength: MAX_PATH_SEGMENT },
    forceCloseConnections: 'idle',
    // Fastify turns node's request timeout off by default; a client that never finishes its request
    // would hold the connection forever. Node checks the timeouts every connectionsCheckingInterval,
    // so the interval follows the timeout to answer 408 close to it.
    requestTimeout: config.httpRequestTimeoutMs,
    http: {
      requestTimeout: config.httpRequestTimeoutMs,
      headersTimeout: Math.min(60_000, config.httpRequestTimeoutMs),
      connectionsCheckingInterval: Math.min(30_000, Math.max(50, Math.floor(config.httpRequestTimeoutMs / 4))),
      // Node would answer a missing Host with a bare 400; the hook below answers it (and two Hosts,
      // which node lets through) in the area's error format.
      requireHostHeader: false,
    },
    // Errors before a request reaches a route are Problem Details too: node's parser (431, 400) and
    // timeouts (408) on the raw socket, Fastify's URL decoding (400) and path segment length (414).
    clientErrorHandler: respondToClientError,
    frameworkErrors: answerFrameworkError,
    schemaController: { compilersFactory: { buildSerializer: lazySerializerFactory } },
  });
  useBoundedJsonBodies(http);
  // 404 and 405 for unrouted requests, as Problem Details.
  answerUnroutedRequests(http, {
    notFound: (method, path) => `No route for ${method} ${path}`,
    send: (request, reply, status, detail) =>
      reply.type('application/problem+json').send(problem(status === 405 ? 'method-not-allowed' : 'not-found', detail, request.url)),
  });

  // Null unless the authentication hook of the request's scope finds a caller.
  http.decorateRequest('principal', null);
  http.decorate('frameworkErrorRenderers', [] as { prefix: string; render: ErrorRenderer; raw: RawErrorRenderer }[]);
  // Root hooks run for every request, the not-found handler's included, so every reply of a routed
  // or unrouted request carries the id (test/foundation/http-basics.test.ts). Callback form: an async
  // hook costs a promise and an extra turn of the microtask queue on every request.
  // One hook for every request: the id, the refusal while draining (below), the Host check.
  let draining = false;
  http.addHook('onRequest', (request, reply, done) => {
    reply.header('X-Request-Id', request.id);
    if (!draining) return done(hostHeaderError(request));
    void reply
      .code(503)
      .header('Connection', 'close')
      .header('Retry-After', '1')
      .type('application/problem+json')
      .send(problem('service-unavailable', 'The server is shutting down; retry on another instance', request.url));
  });
  // An Expect other than 100-continue: node would answer a bare 417.
  http.server.on('checkExpectation', (request: IncomingMessage, response: ServerResponse) => {
    const body = JSON.stringify(problem('expectation-failed', `Expect: ${request.headers.expect} is not supported`, request.url ?? '/'));
    response
      .writeHead(417, {
        'content-type': 'application/problem+json; charset=utf-8',
        'content-length': Buffer.byteLength(body),
        connection: 'close',
      })
      .end(body);
  });

  // Node closes the idle kept-alive connections once, when close() is called; one whose response was
  // still being sent then (a file download) would keep the shutdown waiting for the keep-alive timeout
  // (72 s). Once the server is closing, every connection is closed as its response ends.
  let closing = false;
  http.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  http.addHook('onResponse', (request, reply, done) => {
    if (closing) request.raw.socket?.destroySoon();
    done();
  });

  // A stopping server first drains (src/main.ts): for a moment every request still arriving, on a
  // kept-alive connection or a new one, is answered 503 with `Connection: close`, and every answer
  // says `Connection: close`, so that clients leave their connections before close() shuts the idle
  // ones; a client sending on an idle connection at the instant it is shut would see it cut, not
  // refused.
  http.decorate('beginDraining', () => {
    draining = true;
  });
  http.addHook('onSend', (_request, reply, payload, done) => {
    if (draining || closing) reply.header('Connection', 'close');
    done(null, payload);
  });

  http.setErrorHandler((error, request, reply) => sendProblem(error, request, reply));
  return http;
}
