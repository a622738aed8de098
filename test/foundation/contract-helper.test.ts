import t from 'tap';
import { ContractViolation, contractRegistry } from '../helpers/contract.ts';

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
  contractRegistry().validate('GET', `/api/v1/products/${validProduct.id}`, 200, 'application/json', validProduct);
  t.pass();
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
