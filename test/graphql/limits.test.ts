// test-suite: once (limits are checked before execution)
/** Depth, complexity, alias and length limits: refused before execution, with a clear message. */
import { getIntrospectionQuery } from 'graphql';
import t from 'tap';
import { sharedServer } from '../helpers/server.ts';
import { gql, seed } from './gql.ts';

/**
 * `user(id) { posts(size: 1) { content { author { posts(size: 1) … { id } } } } }` with exactly
 * `depth` field levels (user is level 1, id the last). Sizes of 1 keep the cost low, so only the
 * depth is tested.
 */
function queryOfDepth(depth: number): string {
  const cycle = ['posts(size: 1)', 'content', 'author'];
  const between = Array.from({ length: depth - 2 }, (_, i) => cycle[i % 3]!);
  const nested = between.reduceRight((inner, field) => `${field} { ${inner} }`, 'id');
  return `query($id: ID!) { user(id: $id) { ${nested} } }`;
}

t.test('limits', async (t) => {
  const server = await sharedServer();
  const alice = await seed(server).user('alice');
  await seed(server).post(alice.id, 'Deep');

  t.test('depth 10 passes, 11 is refused before execution', async (t) => {
    const ten = await gql(server, queryOfDepth(10), { id: alice.id });
    t.same(ten.body.errors, undefined);
    t.ok(ten.body.data.user.posts.content[0].author.posts.content[0].author.posts.content, 'executed to depth 10');
    const eleven = await gql(server, queryOfDepth(11), { id: alice.id });
    t.equal(eleven.status, 400);
    t.same(eleven.body, {
      errors: [
        { message: 'Query depth 11 exceeds the maximum depth of 10', extensions: { errorType: 'BAD_REQUEST', code: 'QUERY_TOO_DEEP' } },
      ],
    });
  });

  t.test('complexity 200 passes, 201 is refused before execution', async (t) => {
    // Scalars cost 0. users(size: 97) { content { id followers { id } } } = 1 + 97 × (1 + 1) = 195;
    // searchUsers(limit: n) { id followers(limit: 1) { id } } = 1 + n × 1.
    const at200 = await gql(
      server,
      '{ users(size: 97) { content { id followers { id } } } searchUsers(query: "a", limit: 4) { id followers(limit: 1) { id } } }',
    );
    t.same(at200.body.errors, undefined);
    t.equal(at200.body.data.users.content.length, 1);
    const at201 = await gql(
      server,
      '{ users(size: 97) { content { id followers { id } } } searchUsers(query: "a", limit: 5) { id followers(limit: 1) { id } } }',
    );
    t.equal(at201.status, 400);
    t.same(at201.body, {
      errors: [
        {
          message: 'Query complexity 201 exceeds the maximum complexity of 200',
          extensions: { errorType: 'BAD_REQUEST', code: 'QUERY_TOO_COMPLEX' },
        },
      ],
    });
    const viaVariables = await gql(
      server,
      'query($n: Int) { users(size: 97) { content { id followers { id } } } searchUsers(query: "a", limit: $n) { id followers(limit: 1) { id } } }',
      { n: 5 },
    );
    t.equal(viaVariables.body.errors?.[0].extensions.code, 'QUERY_TOO_COMPLEX', 'variables count');
    // 1 + 100 × (1 + (1 + 10 × 0)): each user's row and its followers' fetch; the ids are free.
    const defaults = await gql(server, '{ users(size: 100) { content { followers { id } } } }');
    t.equal(
      defaults.body.errors?.[0].message,
      'Query complexity 201 exceeds the maximum complexity of 200',
      'followers by their default limit 10',
    );
  });

  t.test('nothing runs when a limit refuses the operation', async (t) => {
    const before = (await gql(server, '{ users { totalElements } }')).body.data.users.totalElements;
    const token = await server.token(alice.id);
    const mutation = `mutation { createPost(input: { title: "x", content: "y" }) { ${'author { posts(size: 1) { content { '.repeat(3)} id ${'} } }'.repeat(3)} } }`;
    const r = await gql(server, mutation, undefined, token);
    t.equal(r.body.errors?.[0].extensions.code, 'QUERY_TOO_DEEP');
    const posts = await gql(server, `{ user(id: "${alice.id}") { posts { totalElements } } }`, undefined, token);
    t.equal(posts.body.data.user.posts.totalElements, 1, 'no post was created');
    t.equal(before, 1);
  });

  t.test('aliases and query length are capped', async (t) => {
    const aliases = (n: number) => `{ ${Array.from({ length: n }, (_, i) => `a${i}: __typename`).join(' ')} }`;
    t.same((await gql(server, aliases(20))).body.errors, undefined);
    const many = await gql(server, aliases(21));
    t.same(many.body.errors, [
      { message: 'Query uses 21 aliases; at most 20 are allowed', extensions: { errorType: 'BAD_REQUEST', code: 'TOO_MANY_ALIASES' } },
    ]);
    const long = await gql(server, `{ __typename }${' '.repeat(16_384)}`);
    t.same(long.body.errors, [
      {
        message: 'Query is 16398 characters long; at most 16384 are allowed',
        extensions: { errorType: 'BAD_REQUEST', code: 'QUERY_TOO_LONG' },
      },
    ]);
  });

  t.test('introspection: the standard query passes, recursive introspection does not', async (t) => {
    const standard = await gql(server, getIntrospectionQuery({ descriptions: true, inputValueDeprecation: true }));
    t.same(standard.body.errors, undefined);
    t.ok(standard.body.data.__schema.types.some((type: any) => type.name === 'Post'));
    const recursive = await gql(server, '{ __schema { types { fields { type { fields { name } } } } } }');
    t.same(
      recursive.body.errors?.map((e: any) => e.extensions),
      [{ errorType: 'BAD_REQUEST', code: 'QUERY_TOO_DEEP' }],
    );
    t.match(recursive.body.errors?.[0].message, /Introspection may select "fields" only once/);
  });
});
