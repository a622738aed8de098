// test-suite: once (the serializer compared with JSON.stringify)
/**
 * The compiled response serializer (src/graphql/response-serializer.ts) writes exactly what
 * JSON.stringify writes for every result without errors: the same keys in the same order and the
 * same escaping, over the application's own schema and data, and over a schema built here for what
 * ours does not have yet (interfaces, unions, floats, strings that need escaping).
 */
import { buildSchema, type DocumentNode, type GraphQLSchema } from 'graphql';
import t from 'tap';
import { createContentContext } from '../../src/content/content.context.ts';
import { OperationExecutor } from '../../src/graphql/execute.ts';
import { graphqlLimits } from '../../src/graphql/limits.ts';
import { OperationPreparer, type OperationRequest } from '../../src/graphql/operation.ts';
import { compileDataSerializer } from '../../src/graphql/response-serializer.ts';
import { buildContentSchema } from '../../src/content/content.graph.ts';
import { loadConfig } from '../../src/config.ts';
import { sharedServer } from '../helpers/server.ts';
import { as, seed } from './gql.ts';

/**
 * Documents go through production's preparation (parse, validation, depth, alias and cost limits),
 * so a document the server would refuse fails here instead of being serialized.
 */
function preparedDocument(schema: GraphQLSchema, request: OperationRequest): DocumentNode {
  const prepared = new OperationPreparer(schema, graphqlLimits(loadConfig({ NODE_ENV: 'test' }))).prepare(request);
  if (Array.isArray(prepared)) throw new Error(`refused: ${(prepared as readonly Error[]).map((e) => e.message).join('; ')}`);
  return prepared as DocumentNode;
}

async function run(
  schema: GraphQLSchema,
  executor: OperationExecutor,
  request: OperationRequest & { variables?: Record<string, unknown> },
  args: { contextValue: unknown; rootValue?: unknown },
) {
  const { variables = {}, operationName } = request;
  const document = preparedDocument(schema, request);
  const operation = executor.compiledFor(document, operationName);
  if (!operation) throw new Error(`not compiled: ${request.query}`);
  const result = await executor.run(operation, {
    schema,
    document,
    ...args,
    variableValues: variables,
    operationName: operationName ?? undefined,
  });
  return { result, written: operation.serialize(result), serialize: operation.serialize };
}

t.test("the application's schema and data", async (t) => {
  const server = await sharedServer();
  const s = seed(server);
  const alice = await s.user('alice', 'Alice "the first" \\ Ä');
  const bob = await s.user('bob');
  const post = await s.post(alice.id, 'Tabs\tand\nnewlines </script>', { tags: ['intro', 'émoji 🎉'] });
  const comment = await s.comment(bob.id, Number(post.id), 'line1\nline2');
  await s.reply(alice.id, Number(comment.id));
  await s.like(bob.id, Number(post.id));
  await s.follow(bob.id, alice.id);
  const schema = buildContentSchema();
  const executor = new OperationExecutor(schema);
  const context = () => createContentContext(as(alice.id), server.app.services);

  const operations: [string, string, Record<string, unknown>?, string?][] = [
    [
      'aliases, __typename, fragments, enums, DateTime, nulls',
      `query Q($id: ID!) {
        me: user(id: $id) { __typename id name: displayName ...U followerCount followers { username } }
        post(id: "${post.id}") { ... on Post { title status createdAt slug } tags { name postCount } likeCount
          comments(size: 2) { content { content parentComment { id } replies { content author { username } } } } }
        users(size: 3) { totalElements totalPages hasNext content { username ...U } }
      }
      fragment U on User { username email createdAt }`,
      { id: alice.id },
    ],
    ['@include false drops the field', 'query ($on: Boolean!) { users { totalElements content @include(if: $on) { id } } }', { on: false }],
    ['@include true keeps it', 'query ($on: Boolean!) { users { totalElements content @include(if: $on) { id } } }', { on: true }],
    ['search with a limit', '{ searchUsers(query: "ali", limit: 5) { id username displayName } }'],
    ['named operation among several', `query A { users { totalElements } } query B { post(id: "${post.id}") { id title } }`, {}, 'B'],
    ['a mutation', `mutation { likePost(postId: "${post.id}") { id likeCount } }`],
  ];
  for (const [name, query, variables, operationName] of operations) {
    const { result, written, serialize } = await run(schema, executor, { query, variables, operationName }, { contextValue: context() });
    t.notOk(result.errors, `${name}: runs without errors`);
    t.not(serialize, JSON.stringify, `${name}: written by a compiled serializer, not the JSON.stringify fallback`);
    t.equal(written, JSON.stringify(result), `${name}: the same JSON as JSON.stringify`);
  }
});

t.test('types the application schema does not have yet', async (t) => {
  const schema = buildSchema(`
    interface Node { id: ID! }
    type A implements Node { id: ID! x: String y: Float }
    type B implements Node { id: ID! y: Float x: String n: [[Int!]]! }
    union Item = A | B
    scalar Json
    type Query { items: [Item!]! nodes: [Node] text: String! big: Float! count: Int! json: Json flag: Boolean }
  `);
  const strings = 'quote " backslash \\ control \u0001 \u001f lone \ud800 surrogate pair 😀 line\u2028sep </script>';
  const rootValue = {
    items: [
      { __typename: 'A', id: '1', x: strings, y: 0.1 },
      { __typename: 'B', id: '2', y: -0, x: null, n: [[1, 2], [], [3]] },
    ],
    nodes: [{ __typename: 'B', id: '3', y: 1e21, x: 'b', n: [] }, null],
    text: strings,
    big: 1.7976931348623157e308,
    count: 2147483647,
    json: { nested: ['any', 1, true, null, { deeper: 'ok' }] },
    flag: false,
  };
  const executor = new OperationExecutor(schema);
  const query = `{
    items { __typename ... on A { y x id } ... on B { x y n } }
    nodes { id ... on B { n x } }
    text big count json flag
  }`;
  const { result, written, serialize } = await run(schema, executor, { query }, { rootValue, contextValue: {} });
  t.notOk(result.errors);
  t.not(serialize, JSON.stringify, 'written by a compiled serializer, not the JSON.stringify fallback');
  t.equal(written, JSON.stringify(result), 'the same JSON as JSON.stringify, key order of each union member kept');
});

t.test('a document without the named operation has no serializer', async (t) => {
  const schema = buildContentSchema();
  const one = preparedDocument(schema, { query: 'query A { users { totalElements } }' });
  const two = preparedDocument(schema, { query: 'query A { __typename } query B { __typename }', operationName: 'B' });
  t.equal(compileDataSerializer(schema, one, 'B'), undefined);
  t.equal(compileDataSerializer(schema, two), undefined);
  t.type(compileDataSerializer(schema, two, 'B'), 'function');
});
