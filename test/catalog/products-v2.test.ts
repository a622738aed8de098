import t from 'tap';
import { startServer } from '../helpers/server.ts';
import { createProduct } from './fixtures.ts';

const UNKNOWN = '3f1d0f3e-1c2b-4a5d-9e8f-0a1b2c3d4e5f';
const body = {
  name: 'Desk Lamp',
  description: 'LED',
  price: { amount: '19.90', currency: 'USD' },
  sku: 'V2-LAMP',
  category: 'HOME',
  quantity: 3,
  attributes: { colour: 'black', watts: '8' },
};

t.test('REST v2 serves the same products in its own shapes', async (t) => {
  const server = await startServer(t);
  const { api } = server;
  const user = await server.token('alice');
  const admin = await server.token('root', ['ADMIN']);

  t.test('create in v2, read in v1 and v2', async (t) => {
    const r = await api.post('/api/v2/products', { body, token: user, expect: 201 });
    t.equal(r.headers.get('location'), `/api/v2/products/${r.body.id}`);
    t.match(r.body, {
      price: { amount: '19.90', currency: 'USD' },
      inventory: { quantity: 3, inStock: true },
      attributes: { colour: 'black', watts: '8' },
      images: [],
    });
    t.same(Object.keys(r.body.attributes), ['colour', 'watts'], 'attribute order kept');
    const v1 = await api.get(`/api/v1/products/${r.body.id}`, { expect: 200 });
    t.match(v1.body, {
      price: 19.9,
      stockQuantity: 3,
      inStock: true,
      attributes: [
        { key: 'colour', value: 'black' },
        { key: 'watts', value: '8' },
      ],
    });
    t.same((await api.get(`/api/v2/products/${r.body.id}`, { expect: 200 })).body, r.body);
  });

  t.test('v1 products appear in v2 lists and search', async (t) => {
    const p = await createProduct(server, { name: 'Walnut shelf', price: 1234567890.07, stockQuantity: 0 });
    const list = await api.get('/api/v2/products?sort=quantity,asc', { expect: 200 });
    t.match(list.body.content[0], { id: p.id, price: { amount: '1234567890.07' }, inventory: { quantity: 0, inStock: false } });
    t.match(list.body.page, { number: 0, size: 20, totalElements: 2 });
    const found = await api.get('/api/v2/products/search?q=walnut&maxPrice=9999999999', { expect: 200 });
    t.same(
      found.body.content.map((x: any) => x.id),
      [p.id],
    );
  });

  t.test('create errors: 400, 401, 409, 413, 415', async (t) => {
    for (const [bad, field] of [
      [{ ...body, sku: 'V2-X1', price: { amount: '0.00', currency: 'USD' } }, '/price/amount'],
      [{ ...body, sku: 'V2-X2', price: { amount: '1.5', currency: 'USD' } }, '/price/amount'],
      [{ ...body, sku: 'V2-X3', price: { amount: '1.50', currency: 'EUR' } }, '/price/currency'],
      [{ ...body, sku: 'V2-X4', attributes: { colour: ' ' } }, '/attributes/colour'],
      [{ ...body, sku: 'V2-X5', quantity: -1 }, '/quantity'],
      [{ ...body, sku: 'V2-X6', stockQuantity: 1 }, '/stockQuantity'],
    ] as const) {
      const r = await api.post('/api/v2/products', { body: bad, token: user, expect: 400 });
      t.ok(
        r.body.errors.some((e: any) => e.field === field),
        `${field} in ${JSON.stringify(r.body.errors)}`,
      );
    }
    await api.post('/api/v2/products', { body, expect: 401 });
    t.match((await api.post('/api/v2/products', { body, token: user, expect: 409 })).body, { code: 'DUPLICATE_SKU' });
    await api.post('/api/v2/products', {
      raw: JSON.stringify({ ...body, description: 'x'.repeat(1_100_000) }),
      headers: { 'content-type': 'application/json' },
      token: user,
      expect: 413,
    });
    await api.post('/api/v2/products', { raw: 'a,b', headers: { 'content-type': 'text/csv' }, token: user, expect: 415 });
  });

  t.test('patch: null or absent unchanged; errors 400, 401, 404, 413, 415', async (t) => {
    const p = (await api.post('/api/v2/products', { body: { ...body, sku: 'V2-PATCH' }, token: user, expect: 201 })).body;
    const r = await api.patch(`/api/v2/products/${p.id}`, {
      body: { price: { amount: '5.05', currency: 'USD' }, name: null },
      token: user,
      expect: 200,
    });
    t.match(r.body, { name: 'Desk Lamp', price: { amount: '5.05' }, inventory: { quantity: 3 } });
    const q = await api.patch(`/api/v2/products/${p.id}`, { body: { quantity: 0 }, token: user, expect: 200 });
    t.match(q.body.inventory, { quantity: 0, inStock: false });
    await api.patch(`/api/v2/products/${p.id}`, { body: { price: { amount: 'abc', currency: 'USD' } }, token: user, expect: 400 });
    await api.patch(`/api/v2/products/${p.id}`, { body: { quantity: 1 }, expect: 401 });
    await api.patch(`/api/v2/products/${UNKNOWN}`, { body: { quantity: 1 }, token: user, expect: 404 });
    await api.patch(`/api/v2/products/${p.id}`, {
      raw: JSON.stringify({ description: 'x'.repeat(1_100_000) }),
      headers: { 'content-type': 'application/json' },
      token: user,
      expect: 413,
    });
    await api.patch(`/api/v2/products/${p.id}`, { raw: 'q', headers: { 'content-type': 'text/plain' }, token: user, expect: 415 });
  });

  t.test('get, list and search errors: 400, 401, 404, 406', async (t) => {
    await api.get(`/api/v2/products/${UNKNOWN}`, { expect: 404 });
    await api.get('/api/v2/products/bad', { expect: 400 });
    await api.get(`/api/v2/products/${UNKNOWN}`, { token: 'bad', expect: 401 });
    const any = (await api.get('/api/v2/products', { expect: 200 })).body.content[0];
    await api.get(`/api/v2/products/${any.id}?format=xml`, { expect: 406 });
    await api.get(`/api/v2/products/${any.id}`, { headers: { accept: 'application/xml' }, expect: 406 });
    await api.get('/api/v2/products?format=csv', { expect: 406 });
    await api.get('/api/v2/products?sort=stockQuantity,asc', { expect: 400 });
    await api.get('/api/v2/products', { token: 'bad', expect: 401 });
    await api.get('/api/v2/products/search?q=a&format=xml', { expect: 406 });
    await api.get('/api/v2/products/search', { expect: 400 });
    await api.get('/api/v2/products/search?q=a&minPrice=3&maxPrice=2', { expect: 400 });
    await api.get('/api/v2/products/search?q=a', { token: 'bad', expect: 401 });
  });

  t.test('delete: ADMIN only, 204 then 404 in both versions', async (t) => {
    const p = (await api.post('/api/v2/products', { body: { ...body, sku: 'V2-DEL' }, token: user, expect: 201 })).body;
    await api.delete(`/api/v2/products/${p.id}`, { expect: 401 });
    await api.delete(`/api/v2/products/${p.id}`, { token: user, expect: 403 });
    await api.delete(`/api/v2/products/bad`, { token: admin, expect: 400 });
    await api.delete(`/api/v2/products/${p.id}`, { token: admin, expect: 204 });
    await api.delete(`/api/v2/products/${p.id}`, { token: admin, expect: 404 });
    await api.get(`/api/v1/products/${p.id}`, { expect: 404 });
  });
});
