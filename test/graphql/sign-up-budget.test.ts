// test-suite: once (a budget window under concurrent requests: real concurrency only on PostgreSQL)
/**
 * `createUser` spends a budget per client address (CREATE_USER_PER_ADDRESS a minute, in the database's
 * `rate_limit_windows`), over HTTP and over the WebSocket alike; beyond it TOO_MANY_REQUESTS.
 */
import t from 'tap';
import { sql } from 'kysely';
import { sharedServer, type TestServer } from '../helpers/server.ts';
import { gql, type GqlResponse } from './gql.ts';
import { record, wsClient } from './ws-client.ts';

const CREATE = 'mutation($u: String!) { createUser(input: { username: $u, email: "x@example.com", displayName: "X" }) { username } }';
const create = (username: string) =>
  `mutation { createUser(input: { username: "${username}", email: "${username}@example.com", displayName: "U" }) { username } }`;

/** POST /graphql as a client behind the (trusted) proxy at 127.0.0.1. */
async function from(server: TestServer, forwardedFor: string, query: string): Promise<GqlResponse> {
  const r = await fetch(`${server.baseUrl}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': forwardedFor },
    body: JSON.stringify({ query }),
  });
  return { status: r.status, body: (await r.json()) as GqlResponse['body'] };
}

t.test('CREATE_USER_PER_ADDRESS calls a minute, then TOO_MANY_REQUESTS with retryAfter', async (t) => {
  const server = await sharedServer({ env: { CREATE_USER_PER_ADDRESS: '2' } });
  t.equal((await gql(server, create('first'))).body.data?.createUser.username, 'first');
  const taken = await gql(server, CREATE, { u: 'first' });
  t.equal(taken.body.errors?.[0].extensions.code, 'VALIDATION_ERROR', 'a refused call counts as well');
  const over = await gql(server, create('third'));
  t.equal(over.status, 200);
  t.equal(over.body.data, null, 'createUser is non-null: data is null');
  t.equal(over.body.errors?.length, 1);
  const [error] = over.body.errors!;
  t.match(error.message, /^Too many sign-ups from this address; try again in \d+ seconds$/);
  t.same(Object.keys(error.extensions).sort(), ['code', 'errorType', 'retryAfter']);
  t.equal(error.extensions.errorType, 'TOO_MANY_REQUESTS');
  t.equal(error.extensions.code, 'RATE_LIMITED');
  t.ok(error.extensions.retryAfter >= 1 && error.extensions.retryAfter <= 60, `retryAfter ${error.extensions.retryAfter} s`);
  t.equal(error.message, `Too many sign-ups from this address; try again in ${error.extensions.retryAfter} seconds`);
  const users = await server.database.db.selectFrom('users').select('username').execute();
  t.same(
    users.map((u) => u.username),
    ['first'],
    'nothing created beyond the budget',
  );

  const invalid = await gql(server, create('x'));
  t.equal(invalid.body.errors?.[0].extensions.code, 'VALIDATION_ERROR', 'input refused by its constraints is refused as before');

  // The window has run out: the budget is whole again.
  await sql`update rate_limit_windows set window_start = now() - interval '61 seconds'`.execute(server.database.db);
  t.equal((await gql(server, create('later'))).body.data?.createUser.username, 'later', 'a new minute, a new budget');
});

t.test('the budget is per client address, as TRUST_PROXY names it', async (t) => {
  const server = await sharedServer({ env: { CREATE_USER_PER_ADDRESS: '1', TRUST_PROXY: '127.0.0.1' } });
  t.equal((await from(server, '203.0.113.1', create('one'))).body.data?.createUser.username, 'one');
  t.equal((await from(server, '203.0.113.2', create('two'))).body.data?.createUser.username, 'two', 'another address');
  t.equal((await from(server, '203.0.113.1', create('three'))).body.errors?.[0].extensions.errorType, 'TOO_MANY_REQUESTS');
  const keys = await server.database.db.selectFrom('rate_limit_windows').select('key').orderBy('key').execute();
  t.same(
    keys.map((k) => k.key),
    ['create-user:address:203.0.113.1', 'create-user:address:203.0.113.2'],
    'counted under a key of its own, apart from the sign-in budgets',
  );
});

t.test('over the WebSocket the same budget is spent', async (t) => {
  const server = await sharedServer({ env: { CREATE_USER_PER_ADDRESS: '1' } });
  t.equal((await gql(server, create('http'))).body.data?.createUser.username, 'http');
  const overWs = record(wsClient(t, server.baseUrl), create('socket'));
  await overWs.completed;
  t.match(overWs.results, [
    { data: null, errors: [{ extensions: { errorType: 'TOO_MANY_REQUESTS', code: 'RATE_LIMITED', retryAfter: Number } }] },
  ]);
});
