// test-suite: once (WebSocket limits, counted in the process)
/**
 * Limits of the GraphQL WebSocket (src/graphql/ws-limits.ts): the message size, open connections per
 * client address and per principal (closed with 4429), and operations at once per connection.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import t, { type Test } from 'tap';
import WebSocket from 'ws';
import { sharedServer } from '../helpers/server.ts';
import { record, wsClient, wsUrl } from './ws-client.ts';

interface Closed {
  code: number;
  reason: string;
}

/** A raw graphql-transport-ws socket that has sent `connection_init`; `acked` or `closed` settles first. */
function connect(t: Test, baseUrl: string, token?: string, headers: Record<string, string> = {}) {
  const socket = new WebSocket(wsUrl(baseUrl), 'graphql-transport-ws', { headers });
  t.teardown(() => socket.terminate());
  const messages: any[] = [];
  const closed = new Promise<Closed>((resolve) => socket.on('close', (code, reason) => resolve({ code, reason: reason.toString() })));
  const acked = new Promise<'acked' | Closed>((resolve) => {
    socket.on('message', (data) => {
      const message = JSON.parse((data as Buffer).toString());
      messages.push(message);
      if (message.type === 'connection_ack') resolve('acked');
    });
    void closed.then(resolve);
  });
  socket.on('open', () =>
    socket.send(JSON.stringify({ type: 'connection_init', ...(token ? { payload: { authorization: `Bearer ${token}` } } : {}) })),
  );
  socket.on('error', () => {});
  return { socket, messages, closed, acked };
}

t.test('a message over 64 KiB closes the socket; one under it is answered', async (t) => {
  const server = await sharedServer();
  const { socket, messages, closed, acked } = connect(t, server.baseUrl);
  t.equal(await acked, 'acked');
  const query = (length: number) => `{ __typename }${' '.repeat(length)}`;
  // Under the payload limit (60 000 bytes): refused by the query length cap, the connection stays.
  socket.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query: query(60_000) } }));
  for (let i = 0; i < 100 && !messages.some((m) => m.id === '1'); i++) await sleep(20);
  t.match(
    messages.find((m) => m.id === '1'),
    { type: 'error', payload: [{ extensions: { code: 'QUERY_TOO_LONG' } }] },
  );
  t.equal(socket.readyState, WebSocket.OPEN, 'a message under the limit keeps the connection');
  socket.send(JSON.stringify({ id: '2', type: 'subscribe', payload: { query: query(64 * 1024) } }));
  t.equal((await closed).code, 1009, 'ws closes with 1009 Message Too Big');
});

t.test('GRAPHQL_WS_MAX_PAYLOAD_BYTES sets the message limit', async (t) => {
  const server = await sharedServer({ env: { GRAPHQL_WS_MAX_PAYLOAD_BYTES: '2048' } });
  const { socket, closed, acked } = connect(t, server.baseUrl);
  t.equal(await acked, 'acked');
  socket.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query: `{ __typename }${' '.repeat(2100)}` } }));
  t.equal((await closed).code, 1009);
});

t.test('connections per client address: the one over the limit is closed with 4429', async (t) => {
  const server = await sharedServer({ env: { GRAPHQL_WS_MAX_CONNECTIONS_PER_ADDRESS: '3' } });
  const alice = await server.token('alice');
  const open = [connect(t, server.baseUrl), connect(t, server.baseUrl, alice), connect(t, server.baseUrl)];
  t.same(await Promise.all(open.map((c) => c.acked)), ['acked', 'acked', 'acked']);
  const anonymous = connect(t, server.baseUrl);
  t.same(await anonymous.closed, { code: 4429, reason: 'Too many connections' }, 'anonymous: refused');
  const signedIn = connect(t, server.baseUrl, await server.token('bob'));
  t.same(await signedIn.closed, { code: 4429, reason: 'Too many connections' }, 'authenticated: refused as well');
  open[0]!.socket.close();
  await open[0]!.closed;
  // The server sees the close a moment after the client: try until the place is free.
  let again: 'acked' | Closed = { code: 0, reason: '' };
  for (let i = 0; i < 20 && again !== 'acked'; i++) {
    again = await connect(t, server.baseUrl).acked;
    if (again !== 'acked') await sleep(50);
  }
  t.equal(again, 'acked', 'a closed connection gives its place back');
});

t.test('the client address follows TRUST_PROXY, as request.ip does', async (t) => {
  const from = (address: string) => ({ 'x-forwarded-for': address });
  const trusting = await sharedServer({ env: { GRAPHQL_WS_MAX_CONNECTIONS_PER_ADDRESS: '1', TRUST_PROXY: '127.0.0.1' } });
  t.equal(await connect(t, trusting.baseUrl, undefined, from('203.0.113.1')).acked, 'acked');
  t.equal(await connect(t, trusting.baseUrl, undefined, from('203.0.113.2')).acked, 'acked', 'another client behind the proxy');
  t.equal((await connect(t, trusting.baseUrl, undefined, from('203.0.113.1')).closed).code, 4429, 'the same client again');

  const direct = await sharedServer({ env: { GRAPHQL_WS_MAX_CONNECTIONS_PER_ADDRESS: '1' } });
  t.equal(await connect(t, direct.baseUrl, undefined, from('203.0.113.1')).acked, 'acked');
  t.equal(
    (await connect(t, direct.baseUrl, undefined, from('203.0.113.2')).closed).code,
    4429,
    'without a trusted proxy X-Forwarded-For is ignored',
  );
});

t.test('connections per principal: the one over the limit is closed with 4429', async (t) => {
  const server = await sharedServer({ env: { GRAPHQL_WS_MAX_CONNECTIONS_PER_PRINCIPAL: '2' } });
  const alice = await server.token('alice');
  const open = [connect(t, server.baseUrl, alice), connect(t, server.baseUrl, alice)];
  t.same(await Promise.all(open.map((c) => c.acked)), ['acked', 'acked']);
  const third = connect(t, server.baseUrl, alice);
  t.same(await third.closed, { code: 4429, reason: 'Too many connections' });
  t.notOk(
    third.messages.some((m) => m.type === 'connection_ack'),
    'never acknowledged',
  );
  t.equal(await connect(t, server.baseUrl, await server.token('bob')).acked, 'acked', 'another principal is not affected');
  t.equal(await connect(t, server.baseUrl).acked, 'acked', 'nor are anonymous connections');
  open[1]!.socket.close();
  await open[1]!.closed;
  let again: 'acked' | Closed = { code: 0, reason: '' };
  for (let i = 0; i < 20 && again !== 'acked'; i++) {
    again = await connect(t, server.baseUrl, alice).acked;
    if (again !== 'acked') await sleep(50);
  }
  t.equal(again, 'acked', 'a closed connection gives its place back');
});

t.test('operations per connection: the one over the limit gets an error, the connection stays', async (t) => {
  const server = await sharedServer({ env: { GRAPHQL_WS_MAX_SUBSCRIPTIONS: '2' } });
  const client = wsClient(t, server.baseUrl);
  const first = record(client, 'subscription { postCreated { id } }');
  const second = record(client, 'subscription { commentAdded(postId: "1") { id } }');
  // commentAdded on a missing post ends with NOT_FOUND: wait for that, then hold two again.
  await second.completed;
  t.match(second.results[0]?.errors, [{ extensions: { errorType: 'NOT_FOUND' } }]);
  const third = record(client, 'subscription { postCreated { title } }');
  await sleep(200);
  t.same(third.results, [], 'the second place was free again');
  const fourth = record(client, 'subscription { postCreated { id title } }');
  await fourth.completed;
  t.same(
    fourth.results.flatMap((r) => r.errors?.map((e: any) => ({ message: e.message, extensions: e.extensions }))),
    [
      {
        message: 'At most 2 operations may run at once on one connection',
        extensions: { errorType: 'BAD_REQUEST', code: 'TOO_MANY_SUBSCRIPTIONS' },
      },
    ],
  );
  first.stop();
  await sleep(100);
  const fifth = record(client, 'subscription { postCreated { slug } }');
  await sleep(200);
  t.same(fifth.results, [], 'a completed subscription gives its place back');
  t.same(third.results, [], 'the others run on');
});
