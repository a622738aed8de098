/**
 * The shared test server (test/helpers/server.ts, fresh-data.ts): one server per file and options,
 * and every test on the database as the migrations left it, whatever the test before it wrote.
 */
import t from 'tap';
import { createProduct } from '../catalog/fixtures.ts';
import { gql, seed } from '../graphql/gql.ts';
import { sharedServer } from '../helpers/server.ts';
import { bearer, dataOf } from '../helpers/typed-client.ts';

let firstBaseUrl = '';
let firstPostId = 0;

t.test('a test writes users, posts, products, tenants and the config', async (t) => {
  const server = await sharedServer();
  firstBaseUrl = server.baseUrl;
  const alice = await seed(server).user('alice');
  firstPostId = (await seed(server).post(alice.id, 'first')).id;
  await createProduct(server, { sku: 'SHARED-1' });
  const admin = await server.token('root', ['ADMIN']);
  await dataOf(201, server.admin.POST('/api/v1/admin/tenants', { body: { id: 'acme', name: 'Acme' }, headers: bearer(admin) }));
  await dataOf(200, server.v1.PUT('/api/v1/files/config', { body: { settings: { theme: 'dark' } }, headers: bearer(admin) }));
  t.equal((await gql(server, '{ users { totalElements } }')).body.data.users.totalElements, 1);
});

t.test('the next test gets the same server, on the database as migrated', async (t) => {
  const server = await sharedServer();
  t.equal(server.baseUrl, firstBaseUrl, 'one server per file');
  t.equal((await gql(server, '{ users { totalElements } }')).body.data.users.totalElements, 0, 'no users');
  const products = await dataOf(200, server.v1.GET('/api/v1/products', {}));
  t.equal(products.page.totalElements, 0, 'no products');
  const admin = await server.token('root', ['ADMIN']);
  const tenants = await dataOf(200, server.admin.GET('/api/v1/admin/tenants', { headers: bearer(admin) }));
  t.same(
    tenants.content.map((tenant) => tenant.id),
    ['default'],
    'the tenant the migrations create is back, the one the test created is gone',
  );
  const config = await server.v1.GET('/api/v1/files/config', {});
  t.equal(config.response.headers.get('etag'), '"1"', 'the config document is back at its first revision');
  t.same(config.data?.settings, {});
  const bob = await seed(server).user('bob');
  t.equal((await seed(server).post(bob.id, 'again')).id, firstPostId, 'sequences start over');
});

t.test('options make another server', async (t) => {
  const server = await sharedServer({ env: { GRAPHQL_MAX_DEPTH: '3' } });
  t.not(server.baseUrl, firstBaseUrl);
  t.equal(server.config.graphqlMaxDepth, 3);
});
