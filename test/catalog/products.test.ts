import t from 'tap';
import { startServer } from '../helpers/server.ts';
import { createProduct, productBody } from './fixtures.ts';

const UNKNOWN = '3f1d0f3e-1c2b-4a5d-9e8f-0a1b2c3d4e5f';

t.test('product CRUD over REST v1', async (t) => {
  const server = await startServer(t);
  const { api } = server;
  const user = await server.token('alice');
  const admin = await server.token('root', ['ADMIN']);

  t.test('create: 401 without a token, 415 for CSV, 413 for an oversized JSON body, 409 for a duplicate SKU', async (t) => {
    await api.post('/api/v1/products', { body: productBody(), expect: 401 });
    await api.post('/api/v1/products', { raw: 'name,price\nx,1', headers: { 'content-type': 'text/csv' }, token: user, expect: 415 });
    await api.post('/api/v1/products', { raw: '<product/>', headers: { 'content-type': 'application/xml' }, token: user, expect: 415 });
    const huge = JSON.stringify({ ...productBody(), description: 'x'.repeat(1_100_000) });
    const tooBig = await api.post('/api/v1/products', {
      raw: huge,
      headers: { 'content-type': 'application/json' },
      token: user,
      expect: 413,
    });
    t.equal(tooBig.body.type, '/problems/payload-too-large');
    const first = await createProduct(server, { sku: 'DUP-001' });
    const dup = await api.post('/api/v1/products', { body: productBody({ sku: 'DUP-001' }), token: user, expect: 409 });
    t.match(dup.body, { code: 'DUPLICATE_SKU', detail: /DUP-001/ });
    t.ok(first.id);
  });

  t.test('create: repeated attribute keys are a 400 at the later occurrence', async (t) => {
    const body = productBody({
      attributes: [
        { key: 'a', value: '1' },
        { key: 'b', value: '2' },
        { key: 'a', value: '3' },
      ],
    });
    const r = await api.post('/api/v1/products', { body, token: user, expect: 400 });
    t.same(
      r.body.errors.map((e: any) => e.field),
      ['/attributes/2/key'],
    );
  });

  t.test('a NUL character is a 400, never a 500', async (t) => {
    const r = await api.post('/api/v1/products', { body: productBody({ description: 'bad\u0000byte' }), token: user, expect: 400 });
    t.equal(r.body.type, '/problems/validation-error');
  });

  t.test('get: 200, 404 for an unknown id, 400 for a malformed id, 401 for a bad token', async (t) => {
    const p = await createProduct(server);
    const r = await api.get(`/api/v1/products/${p.id}`, { expect: 200 });
    t.same(r.body, p);
    t.match((await api.get(`/api/v1/products/${UNKNOWN}`, { expect: 404 })).body, { code: 'PRODUCT_NOT_FOUND' });
    t.match((await api.get('/api/v1/products/nope', { expect: 400 })).body.errors, [{ field: 'path.id' }]);
    await api.get(`/api/v1/products/${p.id}`, { token: 'not-a-jwt', expect: 401 });
  });

  t.test('PUT replaces every field and resets omitted optional ones; images are kept', async (t) => {
    const p = await createProduct(server, { attributes: [{ key: 'colour', value: 'red' }], stockQuantity: 7 });
    const replacement = { name: 'Replaced', price: 99.9, sku: p.sku, category: 'BOOKS' };
    const r = await api.put(`/api/v1/products/${p.id}`, { body: replacement, token: user, expect: 200 });
    t.match(r.body, {
      id: p.id,
      name: 'Replaced',
      price: 99.9,
      category: 'BOOKS',
      description: null,
      stockQuantity: 0,
      inStock: false,
      attributes: [],
    });
    t.equal(r.body.createdAt, p.createdAt);
    t.not(r.body.updatedAt, p.updatedAt);
    t.same((await api.get(`/api/v1/products/${p.id}`, { expect: 200 })).body, r.body, 'stored');
  });

  t.test('PUT errors: 400 (rules of create), 401, 404, 409 (SKU of another product), 415', async (t) => {
    const a = await createProduct(server);
    const b = await createProduct(server);
    const full = { name: 'Name', price: 1, sku: a.sku, category: 'HOME' };
    const bad = await api.put(`/api/v1/products/${a.id}`, { body: { ...full, price: 0 }, token: user, expect: 400 });
    t.match(bad.body.errors, [{ field: '/price' }]);
    const missing = await api.put(`/api/v1/products/${a.id}`, { body: { name: 'Only name' }, token: user, expect: 400 });
    t.ok(missing.body.errors.some((e: any) => e.field === '/sku'));
    await api.put(`/api/v1/products/${a.id}`, { body: full, expect: 401 });
    await api.put(`/api/v1/products/${UNKNOWN}`, { body: { ...full, sku: 'NEW-SKU-1' }, token: user, expect: 404 });
    const clash = await api.put(`/api/v1/products/${a.id}`, { body: { ...full, sku: b.sku }, token: user, expect: 409 });
    t.match(clash.body, { code: 'DUPLICATE_SKU' });
    t.equal((await api.get(`/api/v1/products/${a.id}`, { expect: 200 })).body.sku, a.sku, 'the failed PUT changed nothing');
    await api.put(`/api/v1/products/${a.id}`, { raw: 'a,b', headers: { 'content-type': 'text/csv' }, token: user, expect: 415 });
    await api.put(`/api/v1/products/${a.id}`, {
      raw: JSON.stringify({ ...full, description: 'd'.repeat(1_100_000) }),
      headers: { 'content-type': 'application/json' },
      token: user,
      expect: 413,
    });
  });

  t.test('PATCH changes present fields only; null and absent leave them unchanged', async (t) => {
    const p = await createProduct(server, { description: 'keep me', stockQuantity: 3 });
    const r = await api.patch(`/api/v1/products/${p.id}`, { body: { price: 12.34, description: null }, token: user, expect: 200 });
    t.match(r.body, { name: p.name, description: 'keep me', price: 12.34, stockQuantity: 3, sku: p.sku });
    const zero = await api.patch(`/api/v1/products/${p.id}`, { body: { stockQuantity: 0 }, token: user, expect: 200 });
    t.match(zero.body, { stockQuantity: 0, inStock: false, price: 12.34 });
    const same = await api.patch(`/api/v1/products/${p.id}`, { body: {}, token: user, expect: 200 });
    t.equal(same.body.updatedAt, zero.body.updatedAt, '{} changes nothing');
  });

  t.test('PATCH errors: 400 for a present invalid value or unknown field, 401, 404, 415', async (t) => {
    const p = await createProduct(server);
    t.match((await api.patch(`/api/v1/products/${p.id}`, { body: { name: 'x' }, token: user, expect: 400 })).body.errors, [
      { field: '/name' },
    ]);
    t.match((await api.patch(`/api/v1/products/${p.id}`, { body: { price: 1.234 }, token: user, expect: 400 })).body.errors, [
      { field: '/price' },
    ]);
    t.match((await api.patch(`/api/v1/products/${p.id}`, { body: { sku: 'NEW-1' }, token: user, expect: 400 })).body.errors, [
      { field: '/sku' },
    ]);
    await api.patch(`/api/v1/products/${p.id}`, { body: { name: 'Valid' }, expect: 401 });
    await api.patch(`/api/v1/products/${UNKNOWN}`, { body: { name: 'Valid' }, token: user, expect: 404 });
    await api.patch(`/api/v1/products/${p.id}`, { raw: 'name\nx', headers: { 'content-type': 'text/csv' }, token: user, expect: 415 });
    await api.patch(`/api/v1/products/${p.id}`, {
      raw: JSON.stringify({ description: 'y'.repeat(1_100_000) }),
      headers: { 'content-type': 'application/json' },
      token: user,
      expect: 413,
    });
    t.same((await api.get(`/api/v1/products/${p.id}`, { expect: 200 })).body, p, 'rejected patches changed nothing');
  });

  t.test('DELETE: ADMIN only, 204 then 404', async (t) => {
    const p = await createProduct(server);
    await api.delete(`/api/v1/products/${p.id}`, { expect: 401 });
    const forbidden = await api.delete(`/api/v1/products/${p.id}`, { token: user, expect: 403 });
    t.equal(forbidden.body.type, '/problems/forbidden');
    const r = await api.delete(`/api/v1/products/${p.id}`, { token: admin, expect: 204 });
    t.equal(r.text, '');
    await api.get(`/api/v1/products/${p.id}`, { expect: 404 });
    await api.delete(`/api/v1/products/${p.id}`, { token: admin, expect: 404 });
    await api.delete('/api/v1/products/bad-id', { token: admin, expect: 400 });
  });

  t.test('prices stay exact decimals', async (t) => {
    const p = await createProduct(server, { price: 0.1 });
    const r = await api.patch(`/api/v1/products/${p.id}`, { body: { price: 1234567890.07 }, token: user, expect: 200 });
    t.ok(r.text.includes('"price":1234567890.07'));
    for (const price of [9999999999.99, 0.07, 19.99, 1000000.01]) {
      const ok = await api.patch(`/api/v1/products/${p.id}`, { body: { price }, token: user, expect: 200 });
      t.equal(ok.body.price, price, `${price} accepted exactly`);
    }
    for (const price of [10.999, 0.005, 1234567890.071]) {
      const bad = await api.patch(`/api/v1/products/${p.id}`, { body: { price }, token: user, expect: 400 });
      t.match(bad.body.errors, [{ field: '/price' }], `${price} rejected`);
    }
    await api.patch(`/api/v1/products/${p.id}`, { body: { price: 1234567890.07 }, token: user, expect: 200 });
    const row = await server.database.db.selectFrom('products').select('price').where('id', '=', p.id).executeTakeFirstOrThrow();
    t.equal(row.price, '1234567890.07');
  });
});
