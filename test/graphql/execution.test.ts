// test-suite: once (the document cache and compiled execution)
/**
 * The document cache and compiled execution: a repeated query skips parse and validation but never
 * the variable-dependent cost check; operations run through graphql-jit, once compiled per document
 * and operation, and fall back to graphql-js for subscriptions, for what graphql-jit cannot compile,
 * and for variables it refuses, with the same results graphql-js gives.
 */
import {
  execute,
  GraphQLError,
  GraphQLObjectType,
  GraphQLScalarType,
  GraphQLSchema,
  GraphQLString,
  parse,
  validate,
  type DocumentNode,
  type ExecutionResult,
} from 'graphql';
import t from 'tap';
import { createContentContext } from '../../src/content/content.context.ts';
import { mapGraphQLError } from '../../src/graphql/errors.ts';
import type { OperationPlanner } from '../../src/graphql/context.ts';
import { OperationExecutor } from '../../src/graphql/execute.ts';
import { graphqlLimits } from '../../src/graphql/limits.ts';
import { OperationPreparer } from '../../src/graphql/operation.ts';
import { buildContentSchema } from '../../src/content/content.graph.ts';
import { sharedServer } from '../helpers/server.ts';
import { gql, seed } from './gql.ts';

const schema = buildContentSchema();

function documentOf(prepared: DocumentNode | readonly GraphQLError[]): DocumentNode {
  if (Array.isArray(prepared)) throw new Error(`refused: ${(prepared as readonly GraphQLError[]).map((e) => e.message).join('; ')}`);
  return prepared as DocumentNode;
}

function codesOf(prepared: DocumentNode | readonly GraphQLError[]): unknown[] {
  return Array.isArray(prepared) ? (prepared as readonly GraphQLError[]).map((e) => e.extensions.code) : [];
}

t.test('document cache', async (t) => {
  const preparer = new OperationPreparer(schema, { maxDepth: 10, maxComplexity: 200, maxAliases: 20, maxQueryLength: 16_384 }, 2);

  t.test('a valid query text is parsed and validated once', async (t) => {
    const query = '{ users { totalElements } }';
    const first = documentOf(preparer.prepare({ query }));
    const again = documentOf(preparer.prepare({ query }));
    t.equal(again, first, 'the same DocumentNode comes back');
    t.equal(preparer.cachedDocuments, 1);
  });

  t.test('refused texts are not cached', async (t) => {
    const before = preparer.cachedDocuments;
    t.same(codesOf(preparer.prepare({ query: '{ nope }' })), [undefined], 'a validation error');
    t.same(codesOf(preparer.prepare({ query: '{ users {' })), ['GRAPHQL_PARSE_FAILED'], 'a syntax error');
    t.equal(preparer.cachedDocuments, before);
  });

  t.test('the cache is bounded, least recently used out first', async (t) => {
    const a = documentOf(preparer.prepare({ query: '{ a: users { totalElements } }' }));
    documentOf(preparer.prepare({ query: '{ b: users { totalElements } }' }));
    t.equal(documentOf(preparer.prepare({ query: '{ a: users { totalElements } }' })), a, 'a is used again');
    documentOf(preparer.prepare({ query: '{ c: users { totalElements } }' }));
    t.equal(preparer.cachedDocuments, 2);
    t.equal(documentOf(preparer.prepare({ query: '{ a: users { totalElements } }' })), a, 'a stayed; b was evicted');
  });

  t.test('a cached document is still held to the cost of each request’s variables', async (t) => {
    // users(size: 97) { content { id followers { id } } } = 1 + 97 × 2 = 195; searchUsers(limit: n) { followers(limit: 1) { id } } = 1 + n.
    const query =
      'query($n: Int) { users(size: 97) { content { id followers { id } } } searchUsers(query: "a", limit: $n) { followers(limit: 1) { id } } }';
    const ok = documentOf(preparer.prepare({ query, variables: { n: 4 } }));
    t.same(codesOf(preparer.prepare({ query, variables: { n: 5 } })), ['QUERY_TOO_COMPLEX'], 'same text, larger limit');
    t.equal(documentOf(preparer.prepare({ query, variables: { n: 4 } })), ok, 'and the cached document again for 4');
    t.same(codesOf(preparer.prepare({ query, variables: { n: 500 } })), ['QUERY_TOO_COMPLEX']);
  });

  t.test('@include with a variable counts only when included', async (t) => {
    // Scalars cost 0: without followers 1 + 100 × 1 = 101; with them 1 + 100 × (1 + (1 + 10 × 0)) = 201.
    const query = 'query($all: Boolean!) { users(size: 100) { content { id followers @include(if: $all) { id } } } }';
    t.same(codesOf(preparer.prepare({ query, variables: { all: false } })), []);
    t.same(codesOf(preparer.prepare({ query, variables: { all: true } })), ['QUERY_TOO_COMPLEX']);
    t.same(codesOf(preparer.prepare({ query, variables: { all: false } })), []);
  });

  t.test('a variable-free cost is cached per operation and still refuses every time', async (t) => {
    const query = 'query Small { users(size: 1) { content { id } } } query Big { users(size: 100) { content { id followers { id } } } }';
    t.same(codesOf(preparer.prepare({ query, operationName: 'Small' })), []);
    t.same(codesOf(preparer.prepare({ query, operationName: 'Big' })), ['QUERY_TOO_COMPLEX']);
    t.same(codesOf(preparer.prepare({ query, operationName: 'Big' })), ['QUERY_TOO_COMPLEX'], 'cached cost, same refusal');
    t.same(codesOf(preparer.prepare({ query, operationName: 'Small' })), []);
  });
});

t.test('compiled execution', async (t) => {
  const server = await sharedServer();
  const alice = await seed(server).user('alice');
  const bob = await seed(server).user('bob');
  const post = await seed(server).post(alice.id, 'Hello', { tags: ['intro'] });
  await seed(server).comment(bob.id, post.id);
  // These tests are about execution: a generous cost limit lets one query touch every kind of field.
  const preparer = new OperationPreparer(schema, { ...graphqlLimits(server.config), maxComplexity: 1_000_000 });
  const context = () => createContentContext(null, server.app.services);
  const run = (executor: OperationExecutor, query: string, variables?: Record<string, unknown>, operationName?: string) =>
    Promise.resolve(
      executor.execute({
        schema,
        document: documentOf(preparer.prepare({ query, variables, operationName })),
        variableValues: variables,
        operationName,
        contextValue: context(),
      }),
    );
  const reference = (query: string, variables?: Record<string, unknown>, operationName?: string) =>
    Promise.resolve(
      execute({
        schema,
        document: documentOf(preparer.prepare({ query, variables, operationName })),
        variableValues: variables,
        operationName,
        contextValue: context(),
      }),
    );
  /** Results as a client sees them: errors mapped and serialised. */
  const wire = (result: ExecutionResult) =>
    JSON.parse(JSON.stringify({ ...result, ...(result.errors ? { errors: result.errors.map((e) => mapGraphQLError(e)) } : {}) }));

  // The executor asks the graph's planner once for each operation graphql-jit compiled (and never
  // for one it refused): a planner without plans sees every compilation and changes nothing.
  const compiled: string[] = [];
  const plan: OperationPlanner = (_schema, _document, operationName) => {
    compiled.push(operationName ?? '(anonymous)');
    return null;
  };

  t.test('queries run compiled, compiled once per document and operation, with graphql-js results', async (t) => {
    compiled.length = 0;
    const executor = new OperationExecutor(schema, { plan });
    const query = `query Feed { users(size: 5) { content { id username createdAt posts(size: 5) { content { id title slug createdAt
      author { id username } tags { name postCount } likeCount comments { totalElements content { content author { id } } } } } } } }
      query One($id: ID!) { user(id: $id) { username followerCount } }`;
    const first = await run(executor, query, undefined, 'Feed');
    const second = await run(executor, query, undefined, 'Feed');
    t.same(compiled, ['Feed'], 'compiled on first use only');
    const document = documentOf(preparer.prepare({ query }));
    const feed = executor.compiledFor(document, 'Feed');
    t.not(feed, null, 'it runs compiled');
    t.equal(executor.compiledFor(document, 'Feed'), feed, 'the same compilation each time');
    t.same(wire(first), wire(await reference(query, undefined, 'Feed')), 'same data as graphql-js, DateTime included');
    t.same(second, first);
    t.match(first.data, {
      users: {
        content: [
          {
            username: 'alice',
            posts: { content: [{ title: 'Hello', tags: [{ name: 'intro', postCount: 1 }], comments: { totalElements: 1 } }] },
          },
          { username: 'bob' },
        ],
      },
    });
    await run(executor, query, { id: bob.id }, 'One');
    t.same(compiled, ['Feed', 'One'], 'each operation of the document compiled on its own');
    t.not(executor.compiledFor(document, 'One'), feed);
  });

  t.test('errors: AppErrors reach the mapping with their locations; partial data keeps null fields', async (t) => {
    const executor = new OperationExecutor(schema);
    const query = '{ users(size: 1) { totalElements } missing: user(id: "nobody") { id } }';
    const mutation = 'mutation { users: deleteUser(id: "x") }';
    const partial = wire(await run(executor, query));
    t.same(partial, wire(await reference(query)), 'as graphql-js');
    t.same(partial, {
      data: { users: { totalElements: 2 }, missing: null },
      errors: [
        {
          message: 'User not found: nobody',
          locations: [{ line: 1, column: query.indexOf('missing') + 1 }],
          path: ['missing'],
          extensions: { errorType: 'NOT_FOUND', code: 'USER_NOT_FOUND' },
        },
      ],
    });
    const denied = wire(await run(executor, mutation));
    t.same(denied, wire(await reference(mutation)), 'as graphql-js');
    t.same(denied, {
      data: null,
      errors: [
        {
          message: 'Authentication required',
          locations: [{ line: 1, column: 12 }],
          path: ['users'],
          extensions: { errorType: 'UNAUTHORIZED' },
        },
      ],
    });
  });

  t.test('variables graphql-jit refuses are reported by graphql-js, in its words', async (t) => {
    const executor = new OperationExecutor(schema);
    const query = 'query($s: Int) { users(size: $s) { totalElements } }';
    const refused = wire(await run(executor, query, { s: 'many' }));
    t.same(refused, wire(await reference(query, { s: 'many' })));
    t.match(refused.errors, [
      { message: /Variable "\$s" got invalid value "many"/, extensions: { errorType: 'BAD_REQUEST', code: 'GRAPHQL_VALIDATION_FAILED' } },
    ]);
    t.notOk('data' in refused);
  });

  t.test('an operation graphql-jit cannot compile runs on graphql-js', async (t) => {
    // A scalar whose literal parses to NaN: graphql-js takes any value but undefined, graphql-jit
    // also refuses NaN ("has invalid value"), so an operation with such a literal is one graphql-js
    // accepts and runs and graphql-jit refuses to compile. The content schema with a field taking it:
    const loose = new GraphQLScalarType({ name: 'Loose', parseLiteral: () => Number.NaN, parseValue: Number, serialize: String });
    const config = schema.toConfig();
    const query = config.query!.toConfig();
    const looseSchema = new GraphQLSchema({
      ...config,
      query: new GraphQLObjectType({
        ...query,
        fields: { ...query.fields, loose: { type: GraphQLString, args: { v: { type: loose } }, resolve: (_, { v }) => String(v) } },
      }),
      types: config.types.filter((type) => type.name !== 'Query'),
    });
    const refusals: unknown[] = [];
    compiled.length = 0;
    const executor = new OperationExecutor(looseSchema, { plan, onCompileError: (errors) => refusals.push(...errors) });
    const text = '{ loose(v: "x") users(size: 2) { content { username posts { content { title author { username } } } } } }';
    const document = parse(text);
    t.same(validate(looseSchema, document), [], 'a valid operation');
    const runLoose = () => Promise.resolve(executor.execute({ schema: looseSchema, document, contextValue: context() }));
    const result = await runLoose();
    t.same(result, await execute({ schema: looseSchema, document, contextValue: context() }), 'as graphql-js runs it');
    t.same(result.data, {
      loose: 'NaN',
      users: {
        content: [
          { username: 'alice', posts: { content: [{ title: 'Hello', author: { username: 'alice' } }] } },
          { username: 'bob', posts: { content: [] } },
        ],
      },
    });
    t.match(refusals, [{ message: 'Argument "v" of type "Loose" has invalid value "x".' }], 'graphql-jit refused it');
    await runLoose();
    t.equal(refusals.length, 1, 'tried once, then remembered');
    t.same(compiled, [], 'never compiled');
    t.equal(executor.compiledFor(document, undefined), null, 'it runs on graphql-js');
    // The same operation without the literal compiles on the same executor.
    t.not(executor.compiledFor(parse('{ users(size: 2) { totalElements } }'), undefined), null);
  });

  t.test('subscriptions are never compiled', async (t) => {
    compiled.length = 0;
    const executor = new OperationExecutor(schema, { plan });
    const document = documentOf(preparer.prepare({ query: 'subscription { postCreated { id } }' }));
    t.equal(executor.compiledFor(document, undefined), null, 'subscriptions run on graphql-js');
    t.same(compiled, []);
  });

  t.test('over HTTP: a cached document with variables is refused or run per request', async (t) => {
    const query =
      'query($n: Int) { users(size: 97) { content { username followers { id } } } searchUsers(query: "a", limit: $n) { username followers(limit: 1) { id } } }';
    for (const [n, code] of [
      [4, undefined],
      [5, 'QUERY_TOO_COMPLEX'],
      [4, undefined],
      [50, 'QUERY_TOO_COMPLEX'],
    ] as const) {
      const r = await gql(server, query, { n });
      t.equal(r.body.errors?.[0].extensions.code, code, `limit ${n}`);
      if (!code) t.same(r.body.data.searchUsers, [{ username: 'alice', followers: [] }]);
    }
  });
});
