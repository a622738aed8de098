// test-suite: once (error mapping in the GraphQL layer)
/** The errors table: exact errorType, message and extensions; partial data; nothing internal leaks. */
import t from 'tap';
import { sharedServer } from '../helpers/server.ts';
import { gql, seed } from './gql.ts';

t.test('errors table over HTTP', async (t) => {
  const server = await sharedServer();
  const s = seed(server);
  const alice = await s.user('alice');
  const token = await server.token(alice.id);

  t.test('NOT_FOUND user: message and code, null field next to partial data', async (t) => {
    const r = await gql(
      server,
      `{ missing: user(id: "nobody") { id } found: user(id: "${alice.id}") { username } users { totalElements } }`,
    );
    t.equal(r.status, 200);
    t.same(r.body.data, { missing: null, found: { username: 'alice' }, users: { totalElements: 1 } });
    t.same(r.body.errors, [
      {
        message: 'User not found: nobody',
        locations: [{ line: 1, column: 3 }],
        path: ['missing'],
        extensions: { errorType: 'NOT_FOUND', code: 'USER_NOT_FOUND' },
      },
    ]);
  });

  t.test('NOT_FOUND post', async (t) => {
    const r = await gql(server, '{ post(id: "12345") { id } }');
    t.same(r.body.data, { post: null });
    t.same(
      r.body.errors?.map((e: any) => [e.message, e.extensions]),
      [['Post not found: 12345', { errorType: 'NOT_FOUND', code: 'POST_NOT_FOUND' }]],
    );
  });

  t.test('BAD_REQUEST: constraints checked before the resolver, all violations at once', async (t) => {
    const r = await gql(server, 'mutation($input: CreateUserInput!) { createUser(input: $input) { id } }', {
      input: { username: 'a!', email: 'not-an-email', displayName: '', bio: 'x'.repeat(501) },
    });
    t.same(r.body.data, null);
    t.same(
      r.body.errors?.map((e: any) => [e.message, e.path, e.extensions]),
      [
        [
          'Validation failed',
          ['createUser'],
          {
            errorType: 'BAD_REQUEST',
            code: 'VALIDATION_ERROR',
            violations: [
              { field: 'input.username', message: 'must be at least 3 characters long' },
              { field: 'input.username', message: 'must match ^[a-zA-Z0-9_]+$' },
              { field: 'input.email', message: 'must be a valid e-mail address' },
              { field: 'input.displayName', message: 'must be at least 1 characters long' },
              { field: 'input.bio', message: 'must be at most 500 characters long' },
            ],
          },
        ],
      ],
    );
    t.equal((await gql(server, '{ users { totalElements } }')).body.data.users.totalElements, 1, 'the resolver never ran');
  });

  t.test('BAD_REQUEST: list items, numeric bounds, URI format', async (t) => {
    const tags = await gql(
      server,
      'mutation($input: CreatePostInput!) { createPost(input: $input) { id } }',
      { input: { title: 'T', content: 'C', tags: ['ok', 'also-ok', '-bad', 'x'.repeat(31)] } },
      token,
    );
    t.same(tags.body.errors?.[0].extensions.violations, [
      { field: 'input.tags[2]', message: 'must match ^[A-Za-z0-9][A-Za-z0-9-]*$' },
      { field: 'input.tags[3]', message: 'must be at most 30 characters long' },
    ]);
    const tooMany = await gql(
      server,
      'mutation($input: CreatePostInput!) { createPost(input: $input) { id } }',
      { input: { title: 'T', content: 'C', tags: Array.from({ length: 11 }, (_, i) => `t${i}`) } },
      token,
    );
    t.same(tooMany.body.errors?.[0].extensions.violations, [{ field: 'input.tags', message: 'must have at most 10 items' }]);
    const sizes = await gql(server, '{ users(page: -1, size: 101) { totalElements } }');
    t.same(sizes.body.data, null);
    t.same(
      sizes.body.errors?.map((e: any) => [e.path[0], e.extensions.violations]),
      [
        [
          'users',
          [
            { field: 'page', message: 'must be at least 0' },
            { field: 'size', message: 'must be at most 100' },
          ],
        ],
      ],
    );
    const search = await gql(server, '{ searchUsers(query: "", limit: 0) { id } }');
    t.same(
      search.body.errors?.map((e: any) => [e.path[0], e.extensions.violations]),
      [
        [
          'searchUsers',
          [
            { field: 'query', message: 'must be at least 1 characters long' },
            { field: 'limit', message: 'must be at least 1' },
          ],
        ],
      ],
    );
    const avatar = await gql(
      server,
      `mutation { updateUser(id: "${alice.id}", input: { avatarUrl: "ftp://x" }) { id } }`,
      undefined,
      token,
    );
    t.same(avatar.body.errors?.[0].extensions.violations, [{ field: 'input.avatarUrl', message: 'must match ^https?://' }]);
    const relative = await gql(
      server,
      `mutation { updateUser(id: "${alice.id}", input: { avatarUrl: "http//x" }) { id } }`,
      undefined,
      token,
    );
    t.same(relative.body.errors?.[0].extensions.violations, [
      { field: 'input.avatarUrl', message: 'must match ^https?://' },
      { field: 'input.avatarUrl', message: 'must be an absolute URI' },
    ]);
  });

  t.test('BAD_REQUEST: duplicate username or e-mail is a violation on the input field', async (t) => {
    const q = 'mutation($input: CreateUserInput!) { createUser(input: $input) { id } }';
    const dupName = await gql(server, q, { input: { username: 'ALICE', email: 'new@example.com', displayName: 'A' } });
    t.same(dupName.body.errors?.[0].extensions, {
      errorType: 'BAD_REQUEST',
      code: 'VALIDATION_ERROR',
      violations: [{ field: 'input.username', message: 'is already taken' }],
    });
    const dupMail = await gql(server, q, { input: { username: 'alice2', email: 'Alice@Example.com', displayName: 'A' } });
    t.same(dupMail.body.errors?.[0].extensions.violations, [{ field: 'input.email', message: 'is already registered' }]);
  });

  t.test('BAD_REQUEST: malformed documents and variables are request errors', async (t) => {
    const syntax = await gql(server, '{ users { ');
    t.equal(syntax.status, 400);
    t.match(syntax.body.errors, [{ message: /Syntax Error/, extensions: { errorType: 'BAD_REQUEST', code: 'GRAPHQL_PARSE_FAILED' } }]);
    const unknown = await gql(server, '{ nope }');
    t.match(unknown.body.errors, [{ message: 'Cannot query field "nope" on type "Query".', extensions: { errorType: 'BAD_REQUEST' } }]);
    const variables = await gql(server, 'query($s: Int) { users(size: $s) { totalElements } }', { s: 'many' });
    t.match(variables.body.errors, [{ message: /Variable "\$s" got invalid value "many"/, extensions: { errorType: 'BAD_REQUEST' } }]);
  });

  t.test('INTERNAL_ERROR: opaque message, no stack, partial data kept', async (t) => {
    const users = server.app.services.users;
    const original = users.search;
    users.search = async () => {
      throw new Error('connection to 10.0.0.7 refused: password for db_admin');
    };
    t.teardown(() => {
      users.search = original;
    });
    // `followers` keeps the operation off the planner's whole-operation path (it reads the database
    // without the service), so the failing service is what answers `searchUsers`.
    const r = await gql(server, '{ searchUsers(query: "a") { id followers { id } } users { totalElements } }');
    t.equal(r.status, 200);
    t.same(r.body.data, null, 'searchUsers is non-null: the null propagates to data');
    t.same(r.body.errors, [
      {
        message: 'Internal server error',
        locations: [{ line: 1, column: 3 }],
        path: ['searchUsers'],
        extensions: { errorType: 'INTERNAL_ERROR' },
      },
    ]);
    t.notMatch(JSON.stringify(r.body), /10\.0\.0\.7|db_admin|stack|at .*\.ts/);
    const partial = await gql(server, `{ user(id: "${alice.id}") { username } search: searchUsers(query: "a") { id followers { id } } }`);
    t.equal(partial.body.errors?.[0].extensions.errorType, 'INTERNAL_ERROR');
  });
});
