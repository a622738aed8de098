/**
 * GraphQL subscriptions (and queries/mutations) over WebSocket on /graphql, same port, graphql-ws
 * protocol. The principal comes from the `connection_init` payload (`{ authorization: "Bearer …" }`,
 * the only credential a browser WebSocket can carry), or else from the upgrade request's own
 * Authorization header (non-browser clients); the token is verified exactly as on HTTP (same secret,
 * same verifyToken). An invalid credential closes the connection with 4403. A connection without
 * `connection_init` in time is closed with 4408; keep-alive pings go out at the configured interval.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { GraphQLError, type GraphQLSchema } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer } from 'ws';
import { InvalidTokenError, verifyToken } from '../auth/jwt.ts';
import type { Principal } from '../auth/principal.ts';
import type { ContentEventListener } from '../content/content-events.listener.ts';
import type { Services } from '../services.ts';
import { createContext } from './context.ts';
import { mapGraphQLError } from './errors.ts';
import type { OperationExecutor } from './execute.ts';
import type { OperationPreparer } from './operation.ts';

export const GRAPHQL_WS_PATH = '/graphql';

export interface GraphQLWsOptions {
  schema: GraphQLSchema;
  services: Services;
  preparer: OperationPreparer;
  /** Queries and mutations sent over the socket; subscriptions stay on graphql-js's subscribe. */
  executor: OperationExecutor;
  events: ContentEventListener;
  jwtSecret: string;
  initTimeoutMs: number;
  keepAliveMs: number;
}

/** The principal of a connection: null when anonymous, false when its credential is refused. */
async function principalOf(
  secret: string,
  request: IncomingMessage,
  payload: Record<string, unknown> | undefined,
): Promise<Principal | null | false> {
  const credential = payload?.authorization ?? payload?.Authorization ?? request.headers.authorization;
  if (credential == null) return null;
  const match = typeof credential === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(credential) : null;
  if (!match) return false;
  try {
    return await verifyToken(secret, match[1]!);
  } catch (error) {
    if (error instanceof InvalidTokenError) return false;
    throw error;
  }
}

export function registerGraphQLWs(app: FastifyInstance, options: GraphQLWsOptions): void {
  const { schema, services, preparer, events } = options;
  const wss = new WebSocketServer({ noServer: true });
  const log = (err: unknown) => app.log.error({ err }, 'GraphQL subscription failed');

  const server = useServer<Record<string, unknown> | undefined, { principal: Principal | null }>(
    {
      schema,
      execute: options.executor.execute,
      connectionInitWaitTimeout: options.initTimeoutMs,
      onConnect: async (ctx) => {
        const principal = await principalOf(options.jwtSecret, ctx.extra.request, ctx.connectionParams);
        if (principal === false) return false;
        ctx.extra.principal = principal;
        return true;
      },
      onSubscribe: (ctx, _id, payload) => {
        const prepared = preparer.prepare(payload);
        if (Array.isArray(prepared)) return (prepared as readonly GraphQLError[]).map((e) => mapGraphQLError(e, log));
        return {
          schema,
          document: prepared as Exclude<typeof prepared, readonly GraphQLError[]>,
          operationName: payload.operationName,
          variableValues: payload.variables,
          contextValue: createContext(ctx.extra.principal ?? null, services, events),
        };
      },
      onError: (_ctx, _id, _payload, errors) => errors.map((e) => mapGraphQLError(e, log).toJSON()),
      onNext: (_ctx, _id, _payload, _args, result) =>
        result.errors ? { ...result, errors: result.errors.map((e) => mapGraphQLError(e, log).toJSON()) } : result,
    },
    wss,
    options.keepAliveMs,
  );

  const onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = (request.url ?? '').split('?')[0];
    if (path !== GRAPHQL_WS_PATH) {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    wss.handleUpgrade(request, socket, head, (ws) => wss.emit('connection', ws, request));
  };
  app.server.on('upgrade', onUpgrade);

  // Before the HTTP server stops: open sockets would otherwise keep `close()` waiting.
  app.addHook('preClose', async () => {
    app.server.off('upgrade', onUpgrade);
    await server.dispose();
  });
}
