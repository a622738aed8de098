/**
 * What the session and revocation tests call a credential with: one authenticated request per
 * transport (REST, GraphQL over HTTP) answering the status, and a graphql-ws connection that records
 * when and with which code the server closed it.
 */
import { createClient } from 'graphql-ws';
import type { Test } from 'tap';
import WebSocket from 'ws';
import type { TestServer } from '../helpers/server.ts';
import { wsUrl } from '../graphql/ws-client.ts';

type Target = Pick<TestServer, 'baseUrl'>;

/** GET /api/v1/orders (bearer required): 200 with a good credential, 401 Problem Details otherwise. */
async function rest(t: Test, server: Target, token: string): Promise<number> {
  const r = await fetch(`${server.baseUrl}/api/v1/orders`, { headers: { authorization: `Bearer ${token}` } });
  const body = (await r.json()) as { status?: number };
  if (r.status === 401) {
    t.match(r.headers.get('content-type'), /^application\/problem\+json/, 'REST 401 is Problem Details');
    t.equal(body.status, 401);
  }
  return r.status;
}

/** A GraphQL query over HTTP: 200 with a good credential, 401 in GraphQL's error shape otherwise. */
async function graphql(t: Test, server: Target, token: string): Promise<number> {
  const r = await fetch(`${server.baseUrl}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query: '{ users(size: 1) { totalElements } }' }),
  });
  const body = (await r.json()) as { errors?: { extensions?: { errorType?: string } }[] };
  if (r.status === 401) t.equal(body.errors?.[0]?.extensions?.errorType, 'UNAUTHORIZED', 'GraphQL 401 has the documented error type');
  return r.status;
}

/** Both HTTP transports' statuses, which must agree. */
export async function statuses(t: Test, server: Target, token: string): Promise<[number, number]> {
  return [await rest(t, server, token), await graphql(t, server, token)];
}

interface Socket {
  /** Resolves once the server acknowledged `connection_init` (the credential was accepted). */
  connected: Promise<void>;
  /** Resolves with the close code and the time (Date.now()) the client saw the close. */
  closed: Promise<{ code: number; at: number }>;
  /** Whether the socket is still open. */
  isOpen(): boolean;
}

/** A graphql-ws connection with `token` in `connection_init` (none: anonymous). */
export function socket(t: Test, server: Target, token?: string): Socket {
  let open = false;
  let onConnected!: () => void;
  let onClosed!: (value: { code: number; at: number }) => void;
  const connected = new Promise<void>((resolve) => (onConnected = resolve));
  const closed = new Promise<{ code: number; at: number }>((resolve) => (onClosed = resolve));
  const client = createClient({
    url: wsUrl(server.baseUrl),
    webSocketImpl: WebSocket,
    retryAttempts: 0,
    lazy: false,
    onNonLazyError: () => {},
    ...(token ? { connectionParams: { authorization: `Bearer ${token}` } } : {}),
    on: {
      connected: () => {
        open = true;
        onConnected();
      },
      closed: (event) => {
        open = false;
        onClosed({ code: (event as { code: number }).code, at: Date.now() });
      },
    },
  });
  t.teardown(() => client.dispose());
  return { connected, closed, isOpen: () => open };
}

/** The close of `s`, which must come within `ms` of `since`; rejects otherwise. */
export async function closedWithin(s: Socket, since: number, ms: number): Promise<{ code: number; elapsed: number }> {
  const timeout = new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`not closed within ${ms} ms`)), ms + 200).unref());
  const { code, at } = await Promise.race([s.closed, timeout]);
  return { code, elapsed: at - since };
}
