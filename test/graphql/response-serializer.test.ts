/**
 * The compiled response serializer (src/graphql/response-serializer.ts) writes exactly what
 * JSON.stringify writes for every result without errors: the same keys in the same order and the
 * same escaping, over the application's own schema and data, and over a schema built here for what
 * ours does not have yet (interfaces, unions, floats, strings that need escaping).
 */
import { buildSchema, parse } from 'graphql';
import t from 'tap';
import { createContext } from '../../src/graphql/context.ts';
import { OperationExecutor } from '../../src/graphql/execute.ts';
import { compileDataSerializer } from '../../src/graphql/response-serializer.ts';
import { buildGraphQLSchema } from '../../src/graphql/schema.ts';
import { startServer } from '../helpers/server.ts';
import { as, seed } from './gql.ts';

async function run(
  executor: OperationExecutor,
  query: string,
  contextValue: unknown,
  variables: Record<string, unknown> = {},
  operationName?: string,
) {
  const document = parse(query);
  const operation = executor.compiledFor(document, operationName);
  if (!operation) throw new Error(`not compiled: ${query}`);
  const result = await executor.run(operation, {
    schema: undefined as never,
    document,
    contextValue,
    variableValues: variables,
    operationName,
  });
  return { result, written: operation.serialize(result) };
}

t.test("the application's schema and data", async (t) => {
  const server = await startServer(t);
  const s = seed(server);
  const alice = await s.user('alice', 'Alice "the first" \\ Ä');
  const bob = await s.user('bob');
  const post = await s.post(alice.id, 'Tabs\tand\nnewlines </script>', { tags: ['intro', 'émoji 🎉'] });
  const comment = await s.comment(bob.id, Number(post.id), 'line1\nline2');
  await s.reply(alice.id, Number(comment.id));
  await s.like(bob.id, Number(post.id));
  await s.follow(bob.id, alice.id);
  const schema = buildGraphQLSchema();
  const executor = new OperationExecutor(schema);
  const context = () => createContext(as(alice.id), server.app.services);

  const operations: [string, string, Record<string, unknown>?, string?][] = [
    [
      'aliases, __typename, fragments, enums, DateTime, nulls',
      `query Q($id: ID!) {
        me: user(id: $id) { __typename id name: displayName ...U followerCount followers { totalElements content { username } } }
        post(id: "${post.id}") { ... on Post { title status createdAt slug } tags { name postCount } likeCount
          comments { content { content parentComment { id } replies { content author { username } } } } }
        users { totalElements totalPages hasNext content { username ...U } }
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
    const { result, written } = await run(executor, query, context(), variables, operationName);
    t.notOk(result.errors, `${name}: runs without errors`);
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
  const document = parse(query);
  const operation = executor.compiledFor(document, undefined);
  if (!operation) throw new Error('not compiled');
  const result = await executor.run(operation, { schema, document, rootValue, contextValue: {}, variableValues: {} });
  t.notOk(result.errors);
  t.equal(operation.serialize(result), JSON.stringify(result), 'the same JSON as JSON.stringify, key order of each union member kept');
});

t.test('a document without the named operation has no serializer', async (t) => {
  const schema = buildGraphQLSchema();
  t.equal(compileDataSerializer(schema, parse('query A { users { totalElements } }'), 'B'), undefined);
  t.equal(compileDataSerializer(schema, parse('query A { __typename } query B { __typename }')), undefined);
  t.type(compileDataSerializer(schema, parse('query A { __typename } query B { __typename }'), 'B'), 'function');
});
