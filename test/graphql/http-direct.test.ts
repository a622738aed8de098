// test-suite: once (two transports over the same resolvers compared with each other)
/**
 * The direct answer of the common GraphQL POST (src/graphql/http.ts answerDirectly) against
 * graphql-http's own pipeline: the same application serves both, /graphql with the direct path and
 * /graphql-reference, mounted here, through graphqlHttpPipeline alone (the graphql-http handler
 * /graphql hands every other request to; same schema, limits and resolvers), and every
 * request below must get the same status, content type and body from each. The cases cover what the
 * direct path answers itself (executed queries, field errors, refused documents under both response
 * media types) and what it must leave to graphql-http (other media types, malformed parameters,
 * subscriptions, unknown operation names, variables graphql-jit refuses).
 */
import t from 'tap';
import { createAuthenticator } from '../../src/auth/authenticate.ts';
import { CachedCredentialStore } from '../../src/auth/credential-cache.ts';
import { CredentialVerifier } from '../../src/auth/credentials.ts';
import { bearerAuthentication } from '../../src/auth/bearer-hook.ts';
import { createContentContext } from '../../src/content/content.context.ts';
import { OperationExecutor } from '../../src/graphql/execute.ts';
import { graphqlLimits } from '../../src/graphql/limits.ts';
import { graphqlHttpPipeline } from '../../src/graphql/http.ts';
import { OperationPreparer } from '../../src/graphql/operation.ts';
import { buildContentSchema } from '../../src/content/content.graph.ts';
import { startServer, TEST_JWT_SECRET } from '../helpers/server.ts';
import { seed } from './gql.ts';

const server = await startServer(t, {
  configure: async ({ http, services }) => {
    const schema = buildContentSchema();
    const limits = { ...graphqlLimits({ graphqlMaxDepth: 10, graphqlMaxComplexity: 200 }) };
    // Its own scope with the bearer hook, as the GraphQL plugin registers /graphql.
    await http.register(async (scope) => {
      scope.addHook(
        'onRequest',
        bearerAuthentication(
          createAuthenticator(new CredentialVerifier(TEST_JWT_SECRET, new CachedCredentialStore(services.sessions)), {
            allowedOrigin: 'http://127.0.0.1',
          }),
        ),
      );
      const throughGraphqlHttp = graphqlHttpPipeline(scope, {
        schema,
        preparer: new OperationPreparer(schema, limits),
        executor: new OperationExecutor(schema),
        context: (principal) => createContentContext(principal, services),
      });
      scope.route({ method: ['GET', 'POST'], url: '/graphql-reference', handler: (request, reply) => throughGraphqlHttp(request, reply) });
    });
  },
});
const s = seed(server);
const alice = await s.user('alice', 'Alice A');
const bob = await s.user('bob');
const post = await s.post(alice.id, 'Hello world', { tags: ['intro'] });
await s.comment(bob.id, Number(post.id));
const token = await server.token(alice.id);

interface Case {
  name: string;
  method?: 'POST' | 'GET';
  headers?: Record<string, string>;
  /** The raw request body; objects are sent as JSON. */
  body?: unknown;
}

const JSON_TYPE = { 'content-type': 'application/json' };
const RESPONSE_JSON = { ...JSON_TYPE, accept: 'application/graphql-response+json' };
const deep =
  '{ users { content { followers { content { followers { content { followers { content { followers { content { id } } } } } } } } } } }';

const cases: Case[] = [
  { name: 'query without variables', headers: JSON_TYPE, body: { query: '{ users { totalElements content { username displayName } } }' } },
  {
    name: 'query with variables and operation name',
    headers: RESPONSE_JSON,
    body: {
      query:
        'query A($id: ID!) { user(id: $id) { username posts(size: 3) { content { title tags { name } comments(size: 3) { content { author { username } } } } } } } query B { users { totalElements } }',
      variables: { id: alice.id },
      operationName: 'A',
    },
  },
  { name: 'charset in Content-Type', headers: { 'content-type': 'application/json; charset=utf-8' }, body: { query: '{ __typename }' } },
  {
    name: 'null variables, operationName and extensions',
    headers: JSON_TYPE,
    body: { query: '{ __typename }', variables: null, operationName: null, extensions: null },
  },
  { name: 'extensions object', headers: JSON_TYPE, body: { query: '{ __typename }', extensions: { persistedQuery: { version: 1 } } } },
  {
    name: 'field error next to data (NOT_FOUND)',
    headers: RESPONSE_JSON,
    body: { query: '{ users { totalElements } user(id: "00000000-0000-0000-0000-000000000000") { id } }' },
  },
  {
    name: 'field error under application/json',
    headers: JSON_TYPE,
    body: { query: '{ user(id: "00000000-0000-0000-0000-000000000000") { id } }' },
  },
  { name: 'authorization refused (anonymous allUsers)', headers: RESPONSE_JSON, body: { query: '{ allUsers { id } }' } },
  { name: 'authenticated caller', headers: { ...RESPONSE_JSON, authorization: `Bearer ${token}` }, body: { query: '{ allUsers { id } }' } },
  {
    name: 'mutation refused by input validation',
    headers: { ...RESPONSE_JSON, authorization: `Bearer ${token}` },
    body: { query: 'mutation { createPost(input: { title: "", content: "x" }) { id } }' },
  },
  { name: 'syntax error, graphql-response+json (400)', headers: RESPONSE_JSON, body: { query: '{ users { ' } },
  { name: 'syntax error, application/json (200)', headers: JSON_TYPE, body: { query: '{ users { ' } },
  { name: 'validation error', headers: RESPONSE_JSON, body: { query: '{ nope }' } },
  { name: 'too deep', headers: RESPONSE_JSON, body: { query: deep } },
  {
    name: 'too complex',
    headers: RESPONSE_JSON,
    body: { query: '{ users(size: 100) { content { posts(size: 100) { content { id } } } } }' },
  },
  {
    name: 'wrong variable type (graphql-jit refuses, graphql-js answers)',
    headers: RESPONSE_JSON,
    body: { query: 'query ($id: ID!) { user(id: $id) { id } }', variables: { id: { not: 'an id' } } },
  },
  { name: 'missing required variable', headers: RESPONSE_JSON, body: { query: 'query ($id: ID!) { user(id: $id) { id } }' } },
  {
    name: 'unknown operation name',
    headers: RESPONSE_JSON,
    body: { query: 'query A { __typename } query B { __typename }', operationName: 'C' },
  },
  { name: 'two operations, no name', headers: RESPONSE_JSON, body: { query: 'query A { __typename } query B { __typename }' } },
  { name: 'subscription over POST', headers: RESPONSE_JSON, body: { query: 'subscription { postCreated { id } }' } },
  { name: 'not acceptable (406)', headers: { ...JSON_TYPE, accept: 'text/html' }, body: { query: '{ __typename }' } },
  { name: 'unsupported media type (415)', headers: { 'content-type': 'text/plain' }, body: '{"query":"{ __typename }"}' },
  { name: 'non-utf-8 charset (415)', headers: { 'content-type': 'application/json; charset=latin1' }, body: { query: '{ __typename }' } },
  { name: 'array body', headers: RESPONSE_JSON, body: [{ query: '{ __typename }' }] },
  { name: 'missing query', headers: RESPONSE_JSON, body: { variables: {} } },
  { name: 'query not a string', headers: RESPONSE_JSON, body: { query: 42 } },
  { name: 'variables an array', headers: RESPONSE_JSON, body: { query: '{ __typename }', variables: [1] } },
  { name: 'extensions a string', headers: RESPONSE_JSON, body: { query: '{ __typename }', extensions: 'x' } },
  { name: 'operationName a number', headers: RESPONSE_JSON, body: { query: '{ __typename }', operationName: 1 } },
  { name: 'GET query', method: 'GET', headers: { accept: 'application/graphql-response+json' } },
];

async function call(path: string, c: Case) {
  const url =
    c.method === 'GET' ? `${server.baseUrl}${path}?query=${encodeURIComponent('{ users { totalElements } }')}` : `${server.baseUrl}${path}`;
  const body = c.body === undefined ? undefined : typeof c.body === 'string' ? c.body : JSON.stringify(c.body);
  const r = await fetch(url, { method: c.method ?? 'POST', headers: c.headers, body });
  return { status: r.status, contentType: r.headers.get('content-type'), body: await r.text() };
}

for (const c of cases) {
  t.test(c.name, async (t) => {
    // Twice: the first request fills the document cache and compiles, the second is served from them.
    for (const round of ['first', 'repeated']) {
      const direct = await call('/graphql', c);
      const reference = await call('/graphql-reference', c);
      t.same(direct, reference, `${round} request: the same status, content type and body as graphql-http`);
    }
  });
}

t.test('the direct path answers with data', async (t) => {
  const r = await call('/graphql', cases[1]!);
  t.equal(r.status, 200);
  t.match(JSON.parse(r.body), {
    data: {
      user: {
        username: 'alice',
        posts: { content: [{ title: 'Hello world', tags: [{ name: 'intro' }], comments: { content: [{ author: { username: 'bob' } }] } }] },
      },
    },
  });
});
