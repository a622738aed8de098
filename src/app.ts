/**
 * Builds the HTTP application from the area modules. It never listens (src/main.ts does), so tests
 * build it, listen on port 0 and close it after.
 */
import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Authenticator } from './auth/authenticate.ts';
import type { Config } from './config.ts';
import type { DatabaseHandle } from './db/database.ts';
import { registerPostLists } from './content/post-lists.routes.ts';
import { registerGraphQL } from './graphql/graphql.routes.ts';
import { registerOps } from './http/openapi-docs.ts';
import { registerRestApis } from './http/rest-routes.ts';
import { respondToClientError } from './http/client-errors.ts';
import { problem, toProblem } from './http/problem.ts';
import { RouteIndex } from './http/route-index.ts';
import './http/fastify-types.ts';
import { AppError } from './errors.ts';
import { createServices, type Services } from './services.ts';

export interface AppDependencies {
  config: Config;
  database: DatabaseHandle;
  authenticate: Authenticator;
  /** Key of the signed list cursors (see src/http/cursor.ts: derived from the JWT secret). */
  cursorSecret: Uint8Array;
  /** Verifies the bearer tokens that WebSocket clients send in `connection_init`. */
  jwtSecret: string;
}

export interface App {
  http: FastifyInstance;
  services: Services;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Fastify's refusals before routing (bad URL encoding, overlong path segment) as Problem Details. */
function answerFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const body = toProblem(error, request.url);
  if (body.status >= 500) request.log.error({ err: error }, 'request failed before routing');
  reply.code(body.status).header('X-Request-Id', request.id).type('application/problem+json').send(body);
}

export async function buildApp({ config, database, authenticate, cursorSecret, jwtSecret }: AppDependencies): Promise<App> {
  const http = Fastify({
    // At level silent nothing is ever written, yet Fastify would still build a child logger for every
    // request; without a logger it uses a no-op one, and app.log / request.log keep working.
    logger: config.logLevel === 'silent' ? false : { level: config.logLevel },
    requestIdHeader: false,
    // Accept a caller's request id only when it is a sane token; otherwise mint one.
    genReqId: (req) => {
      const incoming = req.headers['x-request-id'];
      return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    },
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    // Fastify turns node's request timeout off by default; a client that never finishes its request
    // would hold the connection forever. Node checks the timeouts every connectionsCheckingInterval,
    // so the interval follows the timeout to answer 408 close to it.
    requestTimeout: config.httpRequestTimeoutMs,
    http: {
      requestTimeout: config.httpRequestTimeoutMs,
      headersTimeout: Math.min(60_000, config.httpRequestTimeoutMs),
      connectionsCheckingInterval: Math.min(30_000, Math.max(50, Math.floor(config.httpRequestTimeoutMs / 4))),
    },
    // Errors before a request reaches a route are Problem Details too: node's parser (431, 400) and
    // timeouts (408) on the raw socket, Fastify's URL decoding (400) and path segment length (414).
    clientErrorHandler: respondToClientError,
    frameworkErrors: answerFrameworkError,
  });
  database.onConnectionError((error) => http.log.warn({ err: error }, 'database connection lost; the pool opens a new one'));
  const services = createServices(database.db);
  const routes = new RouteIndex();
  http.addHook('onRoute', (route) => routes.add(route.method, route.url));

  http.decorateRequest('principal', null);
  // Runs on every request, so it takes Fastify's callback form (an async hook costs a promise and an
  // extra turn of the microtask queue). The request id goes on the reply here rather than in an
  // onSend hook (one hook less per request): every reply of a routed request keeps it, error
  // replies included (test/foundation/http-basics.test.ts).
  http.addHook('onRequest', (request, reply, done) => {
    reply.header('X-Request-Id', request.id);
    // No Authorization header means anonymous (bearer-strategy.ts): settled here, without reading
    // the route's options (a getter that builds an object) or a round through passport.
    if (!request.headers.authorization || request.routeOptions.config.skipAuth) return done();
    authenticate(request.raw).then((principal) => {
      request.principal = principal;
      done();
    }, done);
  });

  http.setErrorHandler((error, request, reply) => {
    const body = toProblem(error, request.url);
    if (body.status >= 500) request.log.error({ err: error }, 'request failed');
    if (request.url.startsWith('/graphql') && error instanceof AppError && error.code === 'UNAUTHENTICATED') {
      // GraphQL clients get a GraphQL-shaped error for a bad token.
      return reply
        .code(401)
        .type('application/json; charset=utf-8')
        .send({ errors: [{ message: error.message, extensions: { errorType: 'UNAUTHORIZED' } }] });
    }
    if (body.status === 401) reply.header('WWW-Authenticate', 'Bearer');
    return reply.code(body.status).type('application/problem+json').send(body);
  });

  http.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0]!;
    const allowed = routes.methodsFor(path);
    if (allowed.length) {
      return reply
        .code(405)
        .header('Allow', allowed.join(', '))
        .type('application/problem+json')
        .send(problem('method-not-allowed', `${request.method} is not allowed here; allowed: ${allowed.join(', ')}`, request.url));
    }
    return reply
      .code(404)
      .type('application/problem+json')
      .send(problem('not-found', `No route for ${request.method} ${path}`, request.url));
  });

  registerOps(http, database.db, config.baseUrl);
  registerRestApis(http, services);
  registerPostLists(http, services, cursorSecret);
  await registerGraphQL(http, { config, database, services, jwtSecret });

  return { http, services };
}
