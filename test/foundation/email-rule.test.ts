// test-suite: once (the e-mail format check runs before the database)
/**
 * One e-mail rule: GraphQL `createUser` (@constraint format "email") and REST customer creation
 * (OpenAPI `format: email`) give the same verdict on the same address, because both are JSON
 * Schema's `email` format as ajv-formats checks it (src/json-schema.ts). Internationalised addresses
 * are refused on both (decision 59).
 */
import t from 'tap';
import { CreateUserDocument } from '../../generated/client/graphql.ts';
import { sharedServer } from '../helpers/server.ts';
import { bearer } from '../helpers/typed-client.ts';
import { typed } from '../graphql/gql.ts';

const ADDRESSES: [address: string, valid: boolean][] = [
  ['plain@example.com', true],
  ['first.last+tag@mail.example.org', true],
  ['Mixed.Case@Example.COM', true],
  ["o'brien@example.ie", true],
  ['ü@example.com', false],
  ['user@exämple.com', false],
  ['用户@例子.广告', false],
  ['not-an-email', false],
  ['two@@example.com', false],
  ['space inside@example.com', false],
  ['user@localhost', false],
  ['user@-example.com', false],
  ['"quoted"@example.com', false],
  ['trailing-dot.@example.com', false],
  ['', false],
];

t.test('GraphQL and REST agree on every address', async (t) => {
  const server = await sharedServer();
  const token = await server.token('alice');
  let n = 0;
  for (const [address, valid] of ADDRESSES) {
    n += 1;
    const graphql = await typed(server, CreateUserDocument, { input: { username: `user_${n}`, email: address, displayName: 'U' } });
    const graphqlAccepted = Boolean(graphql.body.data?.createUser);
    const rest = await server.v1.POST('/api/v1/customers', { body: { name: `Customer ${n}`, email: address }, headers: bearer(token) });
    const restAccepted = rest.response.status === 201;
    t.equal(graphqlAccepted, restAccepted, `${JSON.stringify(address)}: same verdict on both transports`);
    t.equal(graphqlAccepted, valid, `${JSON.stringify(address)}: ${valid ? 'accepted' : 'refused'}`);
    if (!valid) {
      t.same(
        graphql.body.errors?.[0]?.extensions?.violations?.map((v: { field: string }) => v.field),
        ['input.email'],
        'GraphQL names input.email',
      );
      t.equal(rest.response.status, 400);
      t.same(rest.error && 'errors' in rest.error ? rest.error.errors?.map((v) => v.field) : undefined, ['/email'], 'REST names /email');
    }
  }
});
