/**
 * GraphQL subscriptions (and queries/mutations) over WebSocket on /graphql, same port, graphql-ws
 * protocol. The principal comes from the `connection_init` payload (`{ authorization: "Bearer …" }`,
 * the only credential a browser WebSocket can carry), or else from the upgrade request's own
 * Authorization header (non-browser clients); the token, a session token or a JWT, is verified
 * exactly as on HTTP (src/auth/credentials.ts). An invalid credential closes the connection with
 * 4403. A connection without `connection_init` in time is closed with 4408; keep-alive pings go out
 * at the configured interval.
 *
 * A connection lives no longer than its credential (decision 63): it is closed with 4403 when a
 * `credential_revoked` notification names its user or session (from any instance: the database's
 * triggers send them on commit), and when the credential expires. Should the LISTEN connection drop,
 * every open connection's credential is verified again once it is back, so no revocation sent in
 * between is missed for long.
 *
 * Limits (src/graphql/ws-limits.ts): a message over the payload limit closes the socket (1009, by
 * ws); a client address or a principal over its share of open connections is closed with 4429 "Too
 * many connections"; an operation over the per-connection limit gets an `error` message
 * (TOO_MANY_SUBSCRIPTIONS) and the connection stays.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { GraphQLError, type GraphQLSchema } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer, type WebSocket } from 'ws';
import { bearerToken } from '../auth/bearer-credential.ts';
import { InvalidTokenError, type CredentialVerifier, type VerifiedCredential } from '../auth/credentials.ts';
import type { Principal } from '../auth/principal.ts';
import { CREDENTIAL_REVOKED_CHANNEL, parseCredentialRevoked, type CredentialRevoked } from '../auth/revocations.ts';
import type { GraphQLWsLimits } from '../config.ts';
import type { DatabaseHandle } from '../db/database.ts';
import { listenToChannel } from '../db/notifications.ts';
import type { ClientAddressOf } from '../http/client-address.ts';
import { writeProblemAndClose } from '../http/client-errors.ts';
import { serveIgnoringUpgrade } from '../http/plain-upgrade.ts';
import type { ProblemKind } from '../../generated/openapi/problem-types.ts';
import type { OpenGraph } from './context.ts';
import { mapGraphQLError } from './errors.ts';
import type { OperationExecutor } from './execute.ts';
import type { OperationPreparer } from './operation.ts';
import { paramsOfObject } from './request-params.ts';
import type { Admission, TrustedDocuments } from './trusted/trusted-documents.ts';
import { CLOSE_TOO_MANY_CONNECTIONS, ConnectionQuota, TOO_MANY_CONNECTIONS, tooManySubscriptions } from './ws-limits.ts';

const GRAPHQL_WS_PATH = '/graphql';

/** graphql-ws's close code for a refused credential, used as well when the credential stops being good. */
const CLOSE_FORBIDDEN = 4403;

interface GraphQLWsOptions {
  schema: GraphQLSchema;
  /** Each operation's context (the graph's, for the WebSocket transport). */
  context: OpenGraph['context'];
  preparer: OperationPreparer;
  /** Queries and mutations sent over the socket; subscriptions stay on graphql-js's subscribe. */
  executor: OperationExecutor;
  /** The database whose `credential_revoked` notifications close connections. */
  database: DatabaseHandle;
  verifier: CredentialVerifier;
  initTimeoutMs: number;
  keepAliveMs: number;
  limits: GraphQLWsLimits;
  /** The client address of an upgrade request, as TRUST_PROXY has it. */
  clientAddress: ClientAddressOf;
  /** Trusted documents, as on HTTP: a payload's documentId (with an empty query) runs its registered text. */
  trusted: TrustedDocuments;
}

/** The bearer token a connection presents: undefined when none (anonymous), null when malformed. */
function tokenOf(request: IncomingMessage, payload: Record<string, unknown> | undefined): string | null | undefined {
  const credential = payload?.authorization ?? payload?.Authorization ?? request.headers.authorization;
  if (credential == null) return undefined;
  return typeof credential === 'string' ? bearerToken(credential) : null;
}

const MAX_VERIFY_ATTEMPTS = 5;

/** setTimeout's longest delay (about 24.8 days); a later expiry is reached in steps. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** The authenticated connections of this instance, by user and by session, and when each expires. */
class AuthenticatedConnections {
  private readonly open = new Map<WebSocket, { token: string; principal: Principal; timer?: NodeJS.Timeout }>();
  /** Bumped by every revocation notice: a connection verified while it moved is verified again. */
  revocations = 0;

  add(socket: WebSocket, token: string, credential: VerifiedCredential): void {
    // Closed by the client while its credential was being looked up: 'close' has been and gone.
    if (socket.readyState !== socket.OPEN) return;
    const entry: { token: string; principal: Principal; timer?: NodeJS.Timeout } = { token, principal: credential.principal };
    this.open.set(socket, entry);
    socket.once('close', () => {
      clearTimeout(entry.timer);
      this.open.delete(socket);
    });
    const expiresAt = credential.expiresAt?.getTime();
    if (expiresAt === undefined) return;
    const arm = () => {
      const left = expiresAt - Date.now();
      if (left <= 0) return this.close(socket, 'Credential expired');
      entry.timer = setTimeout(arm, Math.min(left, MAX_TIMER_MS)).unref();
    };
    arm();
  }

  revoked(notice: CredentialRevoked): void {
    this.revocations++;
    for (const [socket, { principal }] of this.open) {
      if (principal.storedUserId !== notice.userId) continue;
      if (notice.sessionId === undefined || principal.sessionId === notice.sessionId) this.close(socket, 'Credential revoked');
    }
  }

  /** Verifies every open connection's credential again (after notifications may have been lost). */
  async recheck(verifier: CredentialVerifier, onError: (error: unknown) => void): Promise<void> {
    await Promise.all(
      [...this.open].map(([socket, { token }]) =>
        verifier.verify(token).then(
          () => undefined,
          (error: unknown) => (error instanceof InvalidTokenError ? this.close(socket, 'Credential revoked') : onError(error)),
        ),
      ),
    );
  }

  close(socket: WebSocket, reason: string): void {
    this.open.delete(socket);
    socket.close(CLOSE_FORBIDDEN, reason);
  }
}

/** Messages only a server sends; graphql-ws closes with 4500 (its own error) when a client sends one. */
const SERVER_MESSAGES = new Set(['connection_ack', 'next', 'error']);

/** RFC 6455 §5.5: a control frame's payload is at most 125 bytes, two of them the close code. */
const MAX_CLOSE_REASON_BYTES = 123;

/** `reason` cut, on a character boundary, to fit a close frame (ending in "…" when cut). */
function fitCloseReason(reason: string): string {
  if (Buffer.byteLength(reason) <= MAX_CLOSE_REASON_BYTES) return reason;
  const room = MAX_CLOSE_REASON_BYTES - Buffer.byteLength('…');
  let cut = '';
  let bytes = 0;
  for (const character of reason) {
    bytes += Buffer.byteLength(character);
    if (bytes > room) break;
    cut += character;
  }
  return `${cut}…`;
}

/**
 * Guards graphql-ws against what would have it close with 4500 (its own error, logged as internal),
 * before it sees it:
 *
 * - a message only a server may send is closed with 4400, as the protocol asks for an unexpected
 *   message (graphql-ws's handler would throw on it). Wraps the socket's message listeners, which
 *   graphql-ws adds on 'connection';
 * - a close reason that names what the client sent (`Subscriber for <id> already exists`, 4409) is
 *   cut to fit the close frame: ws throws on a longer one, and graphql-ws turns that into 4500.
 */
function guardProtocol(ws: WebSocket): void {
  const on = ws.on.bind(ws) as (event: string, listener: (...args: unknown[]) => void) => WebSocket;
  ws.on = ((event: string, listener: (...args: unknown[]) => void) => {
    if (event !== 'message') return on(event, listener);
    return on('message', (data: unknown, ...rest: unknown[]) => {
      const type = messageType(String(data));
      if (type && SERVER_MESSAGES.has(type)) {
        ws.close(4400, `Unexpected message of type ${type} received`);
        return;
      }
      listener(data, ...rest);
    });
  }) as typeof ws.on;
  const close = ws.close.bind(ws);
  ws.close = (code?: number, reason?: string | Buffer) => close(code, typeof reason === 'string' ? fitCloseReason(reason) : reason);
}

/** The `type` of a message, or null when it is not a JSON object with one (graphql-ws refuses those itself). */
function messageType(text: string): string | null {
  try {
    const message = JSON.parse(text) as { type?: unknown } | null;
    return typeof message?.type === 'string' ? message.type : null;
  } catch {
    return null;
  }
}

/** A token of RFC 9110 (a subprotocol name). */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/**
 * What ws would refuse in the handshake (it answers text/html), refused here first as Problem
 * Details: RFC 6455 §4.4 asks for 426 with the supported version when the version is not one.
 */
function handshakeRefusal(request: IncomingMessage): { kind: ProblemKind; detail: string; headers?: string[] } | null {
  if (request.method !== 'GET') return { kind: 'malformed-request', detail: 'A WebSocket handshake is a GET request' };
  const version = request.headers['sec-websocket-version'];
  if (version !== '13' && version !== '8') {
    return { kind: 'upgrade-required', detail: 'Only WebSocket version 13 is supported', headers: ['Sec-WebSocket-Version: 13'] };
  }
  if (!/^[+/0-9A-Za-z]{22}==$/.test(request.headers['sec-websocket-key'] ?? '')) {
    return { kind: 'malformed-request', detail: 'Sec-WebSocket-Key must be 16 bytes in base64' };
  }
  const protocols = request.headers['sec-websocket-protocol'];
  if (protocols !== undefined && !protocols.split(',').every((p) => TOKEN.test(p.trim()))) {
    return { kind: 'malformed-request', detail: 'Sec-WebSocket-Protocol must be a comma-separated list of tokens' };
  }
  return null;
}

export async function registerGraphQLWs(app: FastifyInstance, options: GraphQLWsOptions): Promise<void> {
  const { schema, context, preparer, verifier, limits } = options;
  const wss = new WebSocketServer({ noServer: true, maxPayload: limits.maxPayloadBytes });
  const perAddress = new ConnectionQuota(limits.connectionsPerAddress);
  const perPrincipal = new ConnectionQuota(limits.connectionsPerPrincipal);
  const log = (err: unknown) => app.log.error({ err }, 'GraphQL subscription failed');
  const connections = new AuthenticatedConnections();
  const recheckFailed = (err: unknown) => app.log.error({ err }, 'verifying a WebSocket connection again failed');
  const revocations = await listenToChannel(
    options.database,
    CREDENTIAL_REVOKED_CHANNEL,
    (payload) => {
      const notice = parseCredentialRevoked(payload);
      if (notice) connections.revoked(notice);
    },
    { log: app.log, onReconnect: () => void connections.recheck(verifier, recheckFailed) },
  );
  // After the HTTP server has stopped (sockets are gone), and before the database closes.
  app.addHook('onClose', async () => revocations.close());

  const server = useServer<Record<string, unknown> | undefined, { principal: Principal | null }>(
    {
      schema,
      execute: options.executor.execute,
      subscribe: options.executor.subscribe,
      connectionInitWaitTimeout: options.initTimeoutMs,
      onConnect: async (ctx) => {
        const token = tokenOf(ctx.extra.request, ctx.connectionParams);
        if (token === undefined) {
          ctx.extra.principal = null;
          return true;
        }
        if (token === null) return false;
        // A revocation noticed while the look-up ran might have been this credential's: look again,
        // a few times; under a storm of revocations the client is refused and may retry.
        for (let attempt = 0; attempt < MAX_VERIFY_ATTEMPTS; attempt++) {
          const seen = connections.revocations;
          let credential: VerifiedCredential;
          try {
            credential = await verifier.verify(token);
          } catch (error) {
            if (error instanceof InvalidTokenError) return false;
            throw error;
          }
          if (seen !== connections.revocations) continue;
          if (!perPrincipal.take(credential.principal.userId, ctx.extra.socket)) {
            // Closed here with its own code; graphql-ws's 4403 for `false` then finds it closing.
            ctx.extra.socket.close(CLOSE_TOO_MANY_CONNECTIONS, TOO_MANY_CONNECTIONS);
            return false;
          }
          ctx.extra.principal = credential.principal;
          connections.add(ctx.extra.socket, token, credential);
          return true;
        }
        return false;
      },
      onSubscribe: (ctx, _id, payload) => {
        // graphql-ws has entered this operation's id already: it counts as one of those running.
        if (Object.keys(ctx.subscriptions).length > limits.subscriptionsPerConnection) {
          return [tooManySubscriptions(limits.subscriptionsPerConnection)];
        }
        // Admitted and run from the same values, read once (request-params.ts); graphql-ws has checked
        // the shape of all but documentId.
        const read = paramsOfObject(payload as unknown as Record<string, unknown>);
        if ('error' in read) return [mapGraphQLError(read.error, log)];
        const { params } = read;
        const run = (admission: Admission) => {
          if ('error' in admission) return [mapGraphQLError(admission.error, log)];
          const query = admission.query ?? params.query ?? '';
          const prepared = preparer.prepare({ query, variables: params.variables, operationName: params.operationName });
          if (Array.isArray(prepared)) return (prepared as readonly GraphQLError[]).map((e) => mapGraphQLError(e, log));
          return {
            schema,
            document: prepared as Exclude<typeof prepared, readonly GraphQLError[]>,
            operationName: params.operationName,
            variableValues: params.variables,
            contextValue: context(ctx.extra.principal ?? null, options.clientAddress(ctx.extra.request), 'ws'),
          };
        };
        const admission = options.trusted.admit(params);
        return admission instanceof Promise ? admission.then(run) : run(admission);
      },
      onError: (_ctx, _id, _payload, errors) => errors.map((e) => mapGraphQLError(e, log).toJSON()),
      onNext: (_ctx, _id, _payload, _args, result) =>
        result.errors ? { ...result, errors: result.errors.map((e) => mapGraphQLError(e, log).toJSON()) } : result,
    },
    wss,
    options.keepAliveMs,
  );

  const onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = (request.url ?? '').split('?')[0]!;
    if (path !== GRAPHQL_WS_PATH || request.headers.upgrade?.toLowerCase() !== 'websocket') {
      serveIgnoringUpgrade(app.server, request, socket);
      return;
    }
    const refusal = handshakeRefusal(request);
    if (refusal) {
      writeProblemAndClose(socket, refusal.kind, refusal.detail, path, refusal.headers);
      return;
    }
    wss.handleUpgrade(request, socket, head, (ws) => {
      // Refused after the handshake rather than with an HTTP status, so that the client (a browser
      // too) is told why in the close frame.
      if (!perAddress.take(options.clientAddress(request), ws)) return ws.close(CLOSE_TOO_MANY_CONNECTIONS, TOO_MANY_CONNECTIONS);
      guardProtocol(ws);
      wss.emit('connection', ws, request);
    });
  };
  app.server.on('upgrade', onUpgrade);

  // Before the HTTP server stops: open sockets would otherwise keep `close()` waiting.
  app.addHook('preClose', async () => {
    app.server.off('upgrade', onUpgrade);
    await server.dispose();
  });
}
