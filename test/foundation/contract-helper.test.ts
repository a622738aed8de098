import t from 'tap';
import { createRestV1Client } from '../../generated/client/rest.ts';
import { ContractViolation, contractRegistry } from '../helpers/contract.ts';
import { contractMiddleware } from '../helpers/typed-client.ts';

const validProduct = {
  id: '3f1d0f3e-1c2b-4a5d-9e8f-0a1b2c3d4e5f',
  name: 'Lamp',
  description: null,
  price: 19.99,
  sku: 'LAMP-1',
  category: 'HOME',
  stockQuantity: 3,
  inStock: true,
  attributes: [],
  images: [],
  createdAt: '2026-11-22T00:00:00.000Z',
  updatedAt: '2026-11-22T00:00:00.000Z',
};

t.test('the contract helper accepts a conforming response', async (t) => {
  t.doesNotThrow(() => contractRegistry().validate('GET', `/api/v1/products/${validProduct.id}`, 200, 'application/json', validProduct));
});

t.test('the contract helper rejects a response that breaks the schema', async (t) => {
  const registry = contractRegistry();
  t.throws(
    () => registry.validate('GET', `/api/v1/products/${validProduct.id}`, 200, 'application/json', { ...validProduct, price: 'cheap' }),
    ContractViolation,
  );
  const { inStock: _drop, ...missing } = validProduct;
  t.throws(() => registry.validate('GET', `/api/v1/products/${validProduct.id}`, 200, 'application/json', missing), ContractViolation);
});

t.test('the contract helper rejects undocumented statuses, routes and media types', async (t) => {
  const registry = contractRegistry();
  t.throws(() => registry.validate('GET', `/api/v1/products/${validProduct.id}`, 418, 'application/json', {}), /not documented/);
  t.throws(() => registry.validate('GET', '/api/v1/nowhere', 200, 'application/json', {}), /not documented/);
  t.throws(() => registry.validate('GET', `/api/v1/products/${validProduct.id}`, 200, 'text/plain', 'x'), /documented:/);
});

/** A typed client whose server answers every request with `status`, `contentType` and `body`. */
function clientAnswering(status: number, contentType: string, body: string) {
  const client = createRestV1Client({
    baseUrl: 'http://contract.test',
    fetch: () => Promise.resolve(new Response(body, { status, headers: { 'content-type': contentType } })),
  });
  client.use(contractMiddleware());
  return client;
}

const getProduct = (client: ReturnType<typeof clientAnswering>) =>
  client.GET('/api/v1/products/{id}', { params: { path: { id: validProduct.id } } });

t.test('the typed clients’ middleware passes a conforming response through, body intact', async (t) => {
  const { data, response } = await getProduct(clientAnswering(200, 'application/json', JSON.stringify(validProduct)));
  t.equal(response.status, 200);
  t.same(data, validProduct, 'the middleware read a clone; the client still parses the body');
});

t.test('the typed clients’ middleware fails the call when a response breaks its contract', async (t) => {
  const problem = JSON.stringify({
    type: '/problems/not-found',
    title: 'Not Found',
    status: 404,
    detail: 'no such product',
    instance: `/api/v1/products/${validProduct.id}`,
  });
  await t.rejects(
    getProduct(clientAnswering(200, 'application/json', JSON.stringify({ ...validProduct, price: 'cheap' }))),
    ContractViolation,
  );
  await t.rejects(getProduct(clientAnswering(200, 'application/json', JSON.stringify({ id: validProduct.id }))), /body breaks its schema/);
  await t.rejects(getProduct(clientAnswering(418, 'application/json', '{}')), /not documented/);
  await t.rejects(getProduct(clientAnswering(200, 'text/plain', 'Lamp')), /answered text\/plain; documented:/);
  await t.rejects(getProduct(clientAnswering(404, 'application/json', problem)), /answered application\/json; documented:/);
  await t.rejects(getProduct(clientAnswering(404, 'application/problem+json', '{"title":"Not Found"}')), /body breaks its schema/);
  const found = await getProduct(clientAnswering(404, 'application/problem+json', problem));
  t.equal(found.response.status, 404, 'a documented problem passes');
});
