// test-suite: once (how service failures map to Problem Details)
import t from 'tap';
import { startServer } from '../helpers/server.ts';
import { ONE_PIXEL_PNG, multipart } from './fixtures.ts';

const ID = '3f1d0f3e-1c2b-4a5d-9e8f-0a1b2c3d4e5f';
const SECRET = 'connection to 10.0.0.7 refused by pg_hba';

t.test('an unexpected failure in any REST operation is an opaque 500 problem', async (t) => {
  const server = await startServer(t, {
    // Every method of the REST services fails the way a broken database would.
    configure: (app) => {
      const services = app.services as unknown as Record<string, Record<string, unknown>>;
      for (const name of ['products', 'customers', 'orders', 'files', 'configDocument']) {
        const service = services[name]!;
        for (const method of Object.getOwnPropertyNames(Object.getPrototypeOf(service))) {
          if (method !== 'constructor') service[method] = async () => Promise.reject(new Error(SECRET));
        }
      }
    },
  });
  const { api } = server;
  const admin = await server.token('root', ['ADMIN']);
  const product = { name: 'Name', price: 1, sku: 'ABC-1', category: 'HOME' };
  const v2product = { name: 'Name', price: { amount: '1.00', currency: 'USD' }, sku: 'ABC-2', category: 'HOME' };
  const calls: [string, string, Parameters<typeof api.call>[2]][] = [
    ['GET', '/api/v1/products', {}],
    ['POST', '/api/v1/products', { body: product, token: admin }],
    ['GET', '/api/v1/products/search?q=a', {}],
    ['GET', `/api/v1/products/${ID}`, {}],
    ['PUT', `/api/v1/products/${ID}`, { body: product, token: admin }],
    ['PATCH', `/api/v1/products/${ID}`, { body: { name: 'New name' }, token: admin }],
    ['DELETE', `/api/v1/products/${ID}`, { token: admin }],
    ['POST', `/api/v1/products/${ID}/images`, { raw: multipart('file', ONE_PIXEL_PNG, 'a.png'), token: admin }],
    ['GET', `/api/v1/products/${ID}/images/${ID}`, {}],
    ['POST', '/api/v1/customers', { body: { name: 'A', email: 'a@example.com' }, token: admin }],
    ['GET', `/api/v1/customers/${ID}`, { token: admin }],
    ['GET', '/api/v1/orders', { token: admin }],
    ['POST', '/api/v1/orders', { body: { customerId: ID, items: [{ productId: ID, quantity: 1 }] }, token: admin }],
    ['GET', `/api/v1/orders/${ID}`, { token: admin }],
    ['POST', `/api/v1/orders/${ID}/confirm`, { token: admin }],
    ['POST', `/api/v1/orders/${ID}/cancel`, { token: admin }],
    ['POST', `/api/v1/orders/${ID}/ship`, { body: { carrier: 'c', trackingNumber: 't' }, token: admin }],
    ['POST', `/api/v1/orders/${ID}/deliver`, { token: admin }],
    ['GET', `/api/v1/orders/${ID}/tracking`, { token: admin }],
    ['POST', '/api/v1/files', { raw: multipart('file', Buffer.from('x'), 'a.txt'), token: admin }],
    ['GET', `/api/v1/files/${ID}`, { token: admin }],
    ['GET', '/api/v1/files/config', {}],
    ['PUT', '/api/v1/files/config', { body: { settings: {} }, token: admin }],
    ['GET', '/api/v2/products', {}],
    ['POST', '/api/v2/products', { body: v2product, token: admin }],
    ['GET', '/api/v2/products/search?q=a', {}],
    ['GET', `/api/v2/products/${ID}`, {}],
    ['PATCH', `/api/v2/products/${ID}`, { body: { name: 'New name' }, token: admin }],
    ['DELETE', `/api/v2/products/${ID}`, { token: admin }],
  ];
  for (const [method, path, options] of calls) {
    const r = await api.call(method, path, { ...options, expect: 500 });
    t.match(r.body, { type: '/problems/internal-error', status: 500 }, `${method} ${path}`);
    t.notMatch(r.text, /10\.0\.0\.7|pg_hba|at .*\.ts/, `${method} ${path}: no internals exposed`);
  }
});
