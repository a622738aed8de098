/**
 * Subscriptions over graphql-ws on /graphql (same port): filtering, authentication from
 * connection_init, limits, init time-out (4408) and keep-alive pings.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import WebSocket from 'ws';
import { sharedServer, startServer } from '../helpers/server.ts';
import { as, gql, seed } from './gql.ts';
import { primed, record, wsClient, wsUrl } from './ws-client.ts';

const POST_CREATED = 'subscription($a: ID) { postCreated(authorId: $a) { id title status author { id } } }';
const COMMENT_ADDED = 'subscription($p: ID!) { commentAdded(postId: $p) { id content post { id } parentComment { id } author { id } } }';

t.test('postCreated: by author, published posts only, first publication', async (t) => {
  const server = await sharedServer();
  const s = seed(server);
  const alice = await s.user('alice');
  const bob = await s.user('bob');
  const sub = record(wsClient(t, server.baseUrl), POST_CREATED, { a: alice.id });
  const probes = await primed(sub, () => s.post(alice.id, 'probe'));
  const draft = await s.post(alice.id, 'Draft first', { status: 'DRAFT' });
  await s.post(bob.id, 'Not alice');
  await gql(
    server,
    'mutation { createPost(input: { title: "Public", content: "c", status: PUBLISHED }) { id } }',
    undefined,
    await server.token(alice.id),
  );
  await server.app.services.posts.transition(as(alice.id), String(draft.id), 'publish');
  await sub.until((r) => r.length >= probes + 2);
  await server.app.services.posts.transition(as(alice.id), String(draft.id), 'archive');
  await server.app.services.posts.transition(as(alice.id), String(draft.id), 'restore');
  await server.app.services.posts.transition(as(alice.id), String(draft.id), 'publish');
  await s.post(alice.id, 'Last');
  await sub.until((r) => r.length >= probes + 3);
  const titles = sub.results.slice(probes).map((r) => r.data?.postCreated.title);
  t.same(titles, ['Public', 'Draft first', 'Last'], 'no drafts, no other authors, no second publication');
  t.same(
    sub.results.slice(probes).map((r) => [r.data?.postCreated.status, r.data?.postCreated.author.id]),
    [
      ['PUBLISHED', alice.id],
      ['PUBLISHED', alice.id],
      ['PUBLISHED', alice.id],
    ],
  );
  const everyone = record(wsClient(t, server.baseUrl), 'subscription { postCreated { title } }');
  const before = await primed(everyone, () => s.post(bob.id, 'probe'));
  await s.post(alice.id, 'From alice');
  await s.post(bob.id, 'From bob');
  await everyone.until((r) => r.length >= before + 2);
  t.same(
    everyone.results.slice(before).map((r) => r.data?.postCreated.title),
    ['From alice', 'From bob'],
    'no filter: every author',
  );
});

t.test('commentAdded: only the subscribed post; drafts need their author', async (t) => {
  const server = await sharedServer();
  const s = seed(server);
  const alice = await s.user('alice');
  const bob = await s.user('bob');
  const watched = await s.post(alice.id, 'Watched');
  const other = await s.post(alice.id, 'Other');
  const sub = record(wsClient(t, server.baseUrl), COMMENT_ADDED, { p: String(watched.id) });
  const probes = await primed(sub, () => s.comment(bob.id, watched.id, 'probe'));
  await s.comment(bob.id, other.id, 'elsewhere');
  const top = await s.comment(bob.id, watched.id, 'here');
  await s.reply(alice.id, top.id, 'reply here');
  await sub.until((r) => r.length >= probes + 2);
  await sleep(200);
  t.same(
    sub.results.slice(probes).map((r) => r.data?.commentAdded),
    [
      { id: String(top.id), content: 'here', post: { id: String(watched.id) }, parentComment: null, author: { id: bob.id } },
      {
        id: sub.results[probes + 1]!.data?.commentAdded.id,
        content: 'reply here',
        post: { id: String(watched.id) },
        parentComment: { id: String(top.id) },
        author: { id: alice.id },
      },
    ],
    'never another post’s comments',
  );

  const draft = await s.post(alice.id, 'Secret', { status: 'DRAFT' });
  const anonymous = record(wsClient(t, server.baseUrl), COMMENT_ADDED, { p: String(draft.id) });
  await anonymous.completed;
  t.same(
    anonymous.results.map((r) => r.errors?.map((e: any) => [e.message, e.extensions])),
    [[[`Post not found: ${draft.id}`, { errorType: 'NOT_FOUND', code: 'POST_NOT_FOUND' }]]],
  );
  const author = record(wsClient(t, server.baseUrl, await server.token(alice.id)), COMMENT_ADDED, { p: String(draft.id) });
  const authorProbes = await primed(author, () => s.comment(alice.id, draft.id, 'note to self'));
  t.ok(authorProbes >= 1, 'the author, authenticated through connection_init, follows her draft');
  t.same(author.results[0]?.data?.commentAdded.author, { id: alice.id });
});

t.test('WebSocket errors: constraints, limits, bad token, no HTTP subscriptions', async (t) => {
  const server = await sharedServer();
  const client = wsClient(t, server.baseUrl);
  const invalid = record(client, 'subscription { commentAdded(postId: "") { id } }');
  await invalid.completed;
  t.same(
    invalid.results[0]?.errors?.map((e: any) => e.extensions),
    [
      {
        errorType: 'BAD_REQUEST',
        code: 'VALIDATION_ERROR',
        violations: [{ field: 'postId', message: 'must be at least 1 characters long' }],
      },
    ],
  );
  const deep = record(
    client,
    'subscription { postCreated { author { posts { content { author { posts { content { author { posts { content { id } } } } } } } } } } }',
  );
  await deep.completed;
  t.same(
    deep.results[0]?.errors?.map((e: any) => e.extensions),
    [{ errorType: 'BAD_REQUEST', code: 'QUERY_TOO_DEEP' }],
  );

  const badToken = new WebSocket(wsUrl(server.baseUrl), 'graphql-transport-ws');
  badToken.on('open', () => badToken.send(JSON.stringify({ type: 'connection_init', payload: { authorization: 'Bearer nope' } })));
  const [code] = await new Promise<[number]>((resolve) => badToken.on('close', (c) => resolve([c])));
  t.equal(code, 4403, 'an invalid token in connection_init closes with 4403 Forbidden');

  // graphql-ws names the id in its 4409 reason; one longer than a close frame holds is cut, not a 4500.
  const longId = 'x'.repeat(5000);
  const duplicate = new WebSocket(wsUrl(server.baseUrl), 'graphql-transport-ws');
  duplicate.on('open', () => duplicate.send(JSON.stringify({ type: 'connection_init' })));
  duplicate.on('message', (data: Buffer) => {
    if (JSON.parse(data.toString()).type !== 'connection_ack') return;
    for (let i = 0; i < 2; i++)
      duplicate.send(JSON.stringify({ type: 'subscribe', id: longId, payload: { query: 'subscription { postCreated { id } }' } }));
  });
  const closed = await new Promise<{ code: number; reason: string }>((resolve) =>
    duplicate.on('close', (c, reason) => resolve({ code: c, reason: reason.toString() })),
  );
  t.equal(closed.code, 4409, 'a second subscribe with a running id closes with 4409');
  t.match(closed.reason, /^Subscriber for x+…$/);
  t.ok(Buffer.byteLength(closed.reason) <= 123, 'the reason fits a close frame');

  const overHttp = await gql(server, 'subscription { postCreated { id } }');
  t.match(overHttp.body.errors, [{ message: 'Subscriptions are not supported', extensions: { errorType: 'BAD_REQUEST' } }]);
});

t.test('connection init time-out (4408) and keep-alive pings, from configuration', async (t) => {
  const server = await sharedServer({ env: { GRAPHQL_WS_INIT_TIMEOUT_MS: '300', GRAPHQL_WS_KEEPALIVE_MS: '100' } });
  const silent = new WebSocket(wsUrl(server.baseUrl), 'graphql-transport-ws');
  const started = Date.now();
  const closed = await new Promise<{ code: number; reason: string }>((resolve) =>
    silent.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  t.equal(closed.code, 4408);
  t.equal(closed.reason, 'Connection initialisation timeout');
  t.ok(Date.now() - started >= 250, 'not before the configured time-out');

  const alive = new WebSocket(wsUrl(server.baseUrl), 'graphql-transport-ws');
  let pings = 0;
  alive.on('ping', () => pings++);
  alive.on('open', () => alive.send(JSON.stringify({ type: 'connection_init' })));
  await sleep(650);
  t.ok(pings >= 3, `pings every 100 ms (saw ${pings})`);
  t.equal(alive.readyState, WebSocket.OPEN, 'an initialised connection stays open past the init time-out');
  alive.close();

  const wrongPath = new WebSocket(`${server.baseUrl.replace('http', 'ws')}/elsewhere`, 'graphql-transport-ws');
  const refused = await new Promise<string>((resolve) => wrongPath.on('error', (e) => resolve(e.message)));
  t.match(refused, /404/);
});

t.test('closing the app ends open subscriptions and does not hang', async (t) => {
  // A server of its own: the test closes it.
  const server = await startServer(t);
  const sub = record(wsClient(t, server.baseUrl), 'subscription { postCreated { id } }');
  const alice = await seed(server).user('alice');
  await primed(sub, () => seed(server).post(alice.id, 'probe'));
  const started = Date.now();
  await server.app.http.close();
  await sub.completed.catch(() => {});
  t.ok(Date.now() - started < 5000, 'closed promptly');
});
