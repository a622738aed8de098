// test-suite: once (documents are refused before execution)
/**
 * Documents built to exhaust the server: every one is refused as a 400 before anything walks it in a
 * way that can blow up, over HTTP and over the WebSocket, and the server keeps answering. Without the
 * checks of src/graphql/document-bounds.ts, the fragment documents hold the CPU for longer than any
 * time-out here (2^40 fields after expansion) and the nested ones overflow the parser's stack (500).
 */
import t, { type Test } from 'tap';
import { sharedServer, type TestServer } from '../helpers/server.ts';
import { gql, seed } from './gql.ts';
import { record, wsClient } from './ws-client.ts';

/** `fragment F0 on User { id ...F1 ...F1 } … fragment F<levels> on User { id }`, used from `root`. */
function doublingFragments(levels: number, field: (level: number) => string, root: string): string {
  const fragments = Array.from({ length: levels }, (_, i) => `fragment F${i} on User { ${field(i)} ...F${i + 1} ...F${i + 1} }`);
  return `${root} ${fragments.join(' ')} fragment F${levels} on User { id }`;
}

const EXPONENTIAL = doublingFragments(40, () => 'id', '{ users { content { ...F0 } } }');
const ALIASED = doublingFragments(25, (i) => `a${i}: id b${i}: username`, '{ users { content { ...F0 } } }');

async function healthy(t: Test, server: TestServer): Promise<void> {
  const health = await fetch(`${server.baseUrl}/healthz`);
  t.equal(health.status, 200, 'the server still answers');
}

t.test('fragments that expand exponentially are refused before validation, as written', async (t) => {
  const server = await sharedServer();
  t.ok(EXPONENTIAL.length < 2100, `a ${EXPONENTIAL.length}-character document`);
  for (const [what, query] of [
    ['each spreading the next twice, 40 levels', EXPONENTIAL],
    ['with aliased fields, 25 levels', ALIASED],
  ] as const) {
    const r = await gql(server, query);
    t.equal(r.status, 400, what);
    t.match(r.body.errors, [
      {
        message: /^The operation selects (more than a billion|\d+) fields once its fragments are expanded; at most 2000 are allowed$/,
        extensions: { errorType: 'BAD_REQUEST', code: 'QUERY_TOO_COMPLEX' },
      },
    ]);
    t.notOk(r.body.data, 'nothing executed');
  }
  await healthy(t, server);
});

t.test('the same document as a subscription over the WebSocket', async (t) => {
  const server = await sharedServer();
  const query = doublingFragments(40, () => 'id', 'subscription { postCreated { author { ...F0 } } }');
  const subscription = record(wsClient(t, server.baseUrl), query);
  await subscription.completed;
  t.match(subscription.results, [{ errors: [{ extensions: { errorType: 'BAD_REQUEST', code: 'QUERY_TOO_COMPLEX' } }] }]);
  await healthy(t, server);
});

t.test('a document as large as the limits allow still runs', async (t) => {
  const server = await sharedServer();
  // 2^6 copies of two fields: 128 field selections after expansion, within every limit.
  const r = await gql(
    server,
    doublingFragments(6, () => 'id', '{ users(size: 1) { content { ...F0 } } }'),
  );
  t.same(r.body, { data: { users: { content: [] } } });
});

t.test('nesting the parser would recurse on is a parse failure, not a stack overflow', async (t) => {
  const server = await sharedServer();
  const documents: [string, string][] = [
    ['a list literal 5,000 deep', `{ searchUsers(query: ${'['.repeat(5000)}"a"${']'.repeat(5000)}) { id } }`],
    ['an object literal 2,500 deep', `{ searchUsers(query: ${'{a:'.repeat(2500)}1${'}'.repeat(2500)}) { id } }`],
    ['selections 4,000 deep', `{${'a{'.repeat(4000)}b${'}'.repeat(4000)}}`],
  ];
  for (const [what, query] of documents) {
    const r = await gql(server, query);
    t.equal(r.status, 400, what);
    t.match(r.body.errors, [{ extensions: { errorType: 'BAD_REQUEST', code: 'GRAPHQL_PARSE_FAILED' } }], what);
  }
  // Brackets inside strings and comments are not nesting: these parse, and reach the argument's own
  // rule (searchUsers takes at most 100 characters).
  const quoted = await gql(server, `{ searchUsers(query: "${'['.repeat(500)}") { id } } # ${'{'.repeat(500)}`);
  t.match(quoted.body.errors, [{ extensions: { code: 'VALIDATION_ERROR', violations: [{ field: 'query' }] } }], 'a string and a comment');
  const block = await gql(server, `{ searchUsers(query: """${'{'.repeat(500)}""") { id } }`);
  t.match(block.body.errors, [{ extensions: { code: 'VALIDATION_ERROR', violations: [{ field: 'query' }] } }], 'a block string');
  await healthy(t, server);
});

t.test('a Json value nested 100,000 deep is a 400 before parsing; 100 deep, a 400 naming the field', async (t) => {
  const server = await sharedServer();
  const token = await server.token((await seed(server).user('deep')).id);
  // Written as text: JSON.stringify itself cannot nest that deep.
  const deep = `${'['.repeat(100_000)}1${']'.repeat(100_000)}`;
  const response = await fetch(`${server.baseUrl}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json', authorization: `Bearer ${token}` },
    body: `{"query":"mutation($input: CreatePostInput!) { createPost(input: $input) { id } }","variables":{"input":{"title":"Deep","content":"x","metadata":${deep}}}}`,
  });
  t.equal(response.status, 400);
  t.match(((await response.json()) as { errors?: unknown[] }).errors, [
    { message: 'The JSON body nests arrays and objects more than 128 levels deep', extensions: { errorType: 'BAD_REQUEST' } },
  ]);
  const hundred = `${'['.repeat(100)}1${']'.repeat(100)}`;
  const within = await fetch(`${server.baseUrl}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json', authorization: `Bearer ${token}` },
    body: `{"query":"mutation($input: CreatePostInput!) { createPost(input: $input) { id } }","variables":{"input":{"title":"Deep","content":"x","metadata":${hundred}}}}`,
  });
  const r = { status: within.status, body: (await within.json()) as { errors?: unknown[] } };
  t.match(r.body.errors, [
    {
      message: 'Validation failed',
      extensions: {
        errorType: 'BAD_REQUEST',
        code: 'VALIDATION_ERROR',
        violations: [{ field: 'input.metadata', message: 'must not nest arrays and objects more than 64 levels deep' }],
      },
    },
  ]);
  let allowed: unknown = 'leaf';
  for (let i = 0; i < 64; i++) allowed = { a: allowed };
  const ok = await gql(
    server,
    'mutation($input: CreatePostInput!) { createPost(input: $input) { metadata } }',
    { input: { title: 'Deep enough', content: 'x', metadata: allowed } },
    token,
  );
  t.same(ok.body.errors, undefined);
  t.same(ok.body.data?.createPost.metadata, allowed, '64 levels are kept as written');
});
