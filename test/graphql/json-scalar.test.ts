// test-suite: once (the Json scalar's round trip through a json column, the same type on both engines)
/**
 * The Json scalar: present in the schema, and `Post.metadata` returns what was written, unchanged
 * (objects with their key order, arrays, strings, numbers, booleans, null), through graphql-js and
 * through the compiled execution and serializer that a repeated query uses. `createPost` reports
 * every input violation at once, the status rule included.
 */
import t from 'tap';
import { sharedServer } from '../helpers/server.ts';
import { gql, seed } from './gql.ts';

const CREATE = 'mutation($input: CreatePostInput!) { createPost(input: $input) { id metadata } }';
const READ = 'query($id: ID!) { post(id: $id) { title metadata } }';

t.test('Json scalar and Post.metadata', async (t) => {
  const server = await sharedServer();
  const alice = await seed(server).user('alice');
  const token = await server.token(alice.id);

  t.test('introspection lists Json as a scalar, and Post.metadata uses it', async (t) => {
    const r = await gql(server, '{ __type(name: "Json") { kind name } post: __type(name: "Post") { fields { name type { name } } } }');
    t.same(r.body.data.__type, { kind: 'SCALAR', name: 'Json' });
    t.same(
      r.body.data.post.fields.find((f: any) => f.name === 'metadata'),
      { name: 'metadata', type: { name: 'Json' } },
    );
  });

  const values: [string, unknown][] = [
    ['object, key order kept', { zeta: 1, alpha: [1, 'two', null, { nested: true }], mid: { b: 2, a: 1 } }],
    ['array', [3, 2, 1, 'x', false]],
    ['string', 'just text "quoted" \\ ü'],
    ['number', 12.5],
    ['boolean', true],
    ['absent is null', undefined],
  ];
  for (const [name, value] of values) {
    t.test(`${name}: returned exactly as written, on create and on every later read`, async (t) => {
      const created = await gql(server, CREATE, { input: { title: name, content: 'c', status: 'PUBLISHED', metadata: value } }, token);
      t.notOk(created.body.errors, 'no errors');
      const expected = value === undefined ? null : value;
      t.same(created.body.data.createPost.metadata, expected);
      const id = created.body.data.createPost.id;
      // The first read runs a freshly prepared document; the repeats run the cached, compiled one
      // with the per-operation serializer.
      for (let i = 0; i < 3; i++) {
        const r = await fetch(`${server.baseUrl}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' },
          body: JSON.stringify({ query: READ, variables: { id } }),
        });
        const text = await r.text();
        t.same(JSON.parse(text), { data: { post: { title: name, metadata: expected } } });
        if (expected !== null && typeof expected === 'object')
          t.ok(text.includes(JSON.stringify(expected)), 'key order and spelling kept in the bytes');
      }
    });
  }

  t.test('updatePost replaces metadata; null leaves it', async (t) => {
    const created = await gql(server, CREATE, { input: { title: 'upd', content: 'c', metadata: { v: 1 } } }, token);
    const id = created.body.data.createPost.id;
    const update = 'mutation($id: ID!, $input: UpdatePostInput!) { updatePost(id: $id, input: $input) { metadata } }';
    const replaced = await gql(server, update, { id, input: { metadata: ['new'] } }, token);
    t.same(replaced.body.data.updatePost.metadata, ['new']);
    const kept = await gql(server, update, { id, input: { metadata: null, title: 'renamed' } }, token);
    t.same(kept.body.data.updatePost.metadata, ['new']);
  });

  t.test('metadata longer than 10000 characters of JSON is a violation on input.metadata', async (t) => {
    const r = await gql(server, CREATE, { input: { title: 'big', content: 'c', metadata: { text: 'x'.repeat(10_000) } } }, token);
    t.same(r.body.data, null);
    t.same(r.body.errors?.[0].extensions, {
      errorType: 'BAD_REQUEST',
      code: 'VALIDATION_ERROR',
      violations: [{ field: 'input.metadata', message: 'must be at most 10000 characters long as JSON text' }],
    });
  });

  t.test('createPost reports every violation at once, the status rule included', async (t) => {
    const r = await gql(server, CREATE, { input: { title: '', content: 'c', tags: ['ok', '-bad'], status: 'ARCHIVED' } }, token);
    t.same(r.body.data, null);
    t.equal(r.body.errors?.length, 1);
    t.same(r.body.errors?.[0].extensions, {
      errorType: 'BAD_REQUEST',
      code: 'VALIDATION_ERROR',
      violations: [
        { field: 'input.title', message: 'must be at least 1 characters long' },
        { field: 'input.tags[1]', message: 'must match ^[A-Za-z0-9][A-Za-z0-9-]*$' },
        { field: 'input.status', message: 'must be one of: DRAFT, PUBLISHED' },
      ],
    });
  });
});

t.test('a syntax error is GRAPHQL_PARSE_FAILED; an invalid document stays GRAPHQL_VALIDATION_FAILED', async (t) => {
  const server = await sharedServer();
  const syntax = await gql(server, '{ users { ');
  t.equal(syntax.status, 400);
  t.match(syntax.body.errors, [
    {
      message: /^Syntax Error/,
      locations: [{ line: 1, column: 11 }],
      extensions: { errorType: 'BAD_REQUEST', code: 'GRAPHQL_PARSE_FAILED' },
    },
  ]);
  const invalid = await gql(server, '{ nope }');
  t.match(invalid.body.errors, [{ extensions: { errorType: 'BAD_REQUEST', code: 'GRAPHQL_VALIDATION_FAILED' } }]);
  // graphql-http's own path (a GET) and the direct path answer alike.
  const get = await fetch(`${server.baseUrl}/graphql?query=${encodeURIComponent('{ users {')}`, {
    headers: { accept: 'application/graphql-response+json' },
  });
  t.match(((await get.json()) as any).errors, [{ extensions: { code: 'GRAPHQL_PARSE_FAILED' } }]);
});
