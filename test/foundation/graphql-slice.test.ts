// test-suite: once (the GraphQL transport over the content services)
import t from 'tap';
import { sharedServer } from '../helpers/server.ts';

async function gql(baseUrl: string, query: string, variables?: Record<string, unknown>, token?: string) {
  const r = await fetch(`${baseUrl}/graphql`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/graphql-response+json',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify({ query, variables }),
  });
  return { status: r.status, body: (await r.json()) as any };
}

t.test('GraphQL slice: createUser, user, users over POST /graphql', async (t) => {
  const { baseUrl } = await sharedServer();
  const empty = await gql(baseUrl, '{ users { totalElements } }');
  t.equal(empty.status, 200);
  t.same(empty.body, { data: { users: { totalElements: 0 } } });

  const created = await gql(
    baseUrl,
    'mutation($input: CreateUserInput!) { createUser(input: $input) { id username email displayName bio createdAt } }',
    { input: { username: 'alice', email: 'Alice@Example.com', displayName: 'Alice', bio: 'hi' } },
  );
  t.equal(created.status, 200);
  const user = created.body.data.createUser;
  t.match(user, { username: 'alice', email: 'alice@example.com', displayName: 'Alice', bio: 'hi' });
  t.match(user.createdAt, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);

  const fetched = await gql(baseUrl, 'query($id: ID!) { user(id: $id) { id username } }', { id: user.id });
  t.same(fetched.body.data.user, { id: user.id, username: 'alice' });

  const list = await gql(baseUrl, '{ users(page: 0, size: 5) { totalElements totalPages hasNext content { username } } }');
  t.same(list.body.data.users, { totalElements: 1, totalPages: 1, hasNext: false, content: [{ username: 'alice' }] });

  const missing = await gql(baseUrl, '{ user(id: "nobody") { id } }');
  t.same(missing.body.data, { user: null });
  t.match(missing.body.errors, [
    { message: 'User not found: nobody', path: ['user'], extensions: { errorType: 'NOT_FOUND', code: 'USER_NOT_FOUND' } },
  ]);
});
