// test-suite: once (the products API's validation and representation)
import t from 'tap';
import type { components } from '../../generated/openapi/rest-v1.ts';
import { sharedServer } from '../helpers/server.ts';
import { bearer, dataOf, errorOf, expectStatus } from '../helpers/typed-client.ts';
import { createProduct, productBody } from './fixtures.ts';

const UNKNOWN = '3f1d0f3e-1c2b-4a5d-9e8f-0a1b2c3d4e5f';

type CreateProductRequest = components['schemas']['CreateProductRequest'];
/**
 * openapi-typescript types a property with a default as required, but the document lets a request
 * omit `stockQuantity` (0 then), which is what PUT's reset is tested with.
 */
type ProductReplacement = Omit<CreateProductRequest, 'stockQuantity'> & { stockQuantity?: number };

t.test('product CRUD over REST v1', async (t) => {
  const server = await sharedServer();
  const { api, v1 } = server;
  const user = await server.token('alice');
  // The catalog is the platform's: its writes need the platform ADMIN.
  const writer = await server.token('catalog-admin', ['ADMIN']);
  const admin = await server.token('root', ['ADMIN']);
  const path = (id: string) => ({ path: { id } });
  const get = (id: string, token?: string) => v1.GET('/api/v1/products/{id}', { params: path(id), headers: bearer(token) });
  const put = (id: string, body: ProductReplacement, token?: string) =>
    v1.PUT('/api/v1/products/{id}', { params: path(id), body: body as CreateProductRequest, headers: bearer(token) });
  const patch = (id: string, body: components['schemas']['PatchProductRequest'], token?: string) =>
    v1.PATCH('/api/v1/products/{id}', { params: path(id), body, headers: bearer(token) });
  const remove = (id: string, token?: string) => v1.DELETE('/api/v1/products/{id}', { params: path(id), headers: bearer(token) });
  const create = (body: CreateProductRequest, token?: string) => v1.POST('/api/v1/products', { body, headers: bearer(token) });

  t.test('create: 401 without a token, 415 for CSV, 413 for an oversized JSON body, 409 for a duplicate SKU', async (t) => {
    await expectStatus(401, create(productBody()));
    // Raw client: the typed client sends JSON only, and these bodies are CSV and XML.
    await api.post('/api/v1/products', { raw: 'name,price\nx,1', headers: { 'content-type': 'text/csv' }, token: writer, expect: 415 });
    await api.post('/api/v1/products', { raw: '<product/>', headers: { 'content-type': 'application/xml' }, token: writer, expect: 415 });
    const tooBig = await errorOf(413, create({ ...productBody(), description: 'x'.repeat(1_100_000) }, writer));
    t.equal(tooBig.type, '/problems/payload-too-large');
    const first = await createProduct(server, { sku: 'DUP-001' });
    const dup = await errorOf(409, create(productBody({ sku: 'DUP-001' }), writer));
    t.match(dup, { code: 'DUPLICATE_SKU', detail: /DUP-001/ });
    t.equal(first.sku, 'DUP-001');
  });

  t.test('the catalog is the platform’s: a signed-in user may not create, replace, patch or delete', async (t) => {
    const made = await createProduct(server, { sku: 'OWNED-BY-PLATFORM' });
    const body = productBody();
    t.match(await errorOf(403, create(body, user)), { detail: 'This operation requires the ADMIN role' });
    await expectStatus(403, put(made.id, body, user));
    await expectStatus(403, patch(made.id, { price: 0.01 }, user));
    await expectStatus(403, remove(made.id, user));
    t.equal((await dataOf(200, get(made.id))).price, made.price, 'nothing changed');
  });

  t.test('create: repeated attribute keys are a 400 at the later occurrence', async (t) => {
    const body = productBody({
      attributes: [
        { key: 'a', value: '1' },
        { key: 'b', value: '2' },
        { key: 'a', value: '3' },
      ],
    });
    const r = await errorOf(400, create(body, writer));
    t.same(
      r.errors?.map((e) => e.field),
      ['/attributes/2/key'],
    );
  });

  t.test('a NUL character is a 400, never a 500', async (t) => {
    const r = await errorOf(400, create(productBody({ description: 'bad\u0000byte' }), writer));
    t.equal(r.type, '/problems/validation-error');
  });

  t.test('get: 200, 404 for an unknown id, 400 for a malformed id, 401 for a bad token', async (t) => {
    const p = await createProduct(server);
    t.same(await dataOf(200, get(p.id)), p);
    t.match(await errorOf(404, get(UNKNOWN)), { code: 'PRODUCT_NOT_FOUND' });
    t.match((await errorOf(400, get('nope'))).errors, [{ field: 'path.id' }]);
    await expectStatus(401, get(p.id, 'not-a-jwt'));
  });

  t.test('PUT replaces every field and resets omitted optional ones; images are kept', async (t) => {
    const p = await createProduct(server, { attributes: [{ key: 'colour', value: 'red' }], stockQuantity: 7 });
    const replacement = { name: 'Replaced', price: 99.9, sku: p.sku, category: 'BOOKS' as const };
    const r = await dataOf(200, put(p.id, replacement, writer));
    t.match(r, {
      id: p.id,
      name: 'Replaced',
      price: 99.9,
      category: 'BOOKS',
      description: null,
      stockQuantity: 0,
      inStock: false,
      attributes: [],
    });
    t.equal(r.createdAt, p.createdAt);
    t.not(r.updatedAt, p.updatedAt);
    t.same(await dataOf(200, get(p.id)), r, 'stored');
  });

  t.test('PUT errors: 400 (rules of create), 401, 404, 409 (SKU of another product), 415', async (t) => {
    const a = await createProduct(server);
    const b = await createProduct(server);
    const full = { name: 'Name', price: 1, sku: a.sku, category: 'HOME' as const };
    const bad = await errorOf(400, put(a.id, { ...full, price: 0 }, writer));
    t.match(bad.errors, [{ field: '/price' }]);
    // Raw client: a body missing required properties does not compile with the typed client.
    const missing = await api.put(`/api/v1/products/${a.id}`, { body: { name: 'Only name' }, token: writer, expect: 400 });
    t.ok(missing.body.errors.some((e: any) => e.field === '/sku'));
    await expectStatus(401, put(a.id, full));
    await expectStatus(404, put(UNKNOWN, { ...full, sku: 'NEW-SKU-1' }, writer));
    const clash = await errorOf(409, put(a.id, { ...full, sku: b.sku }, writer));
    t.match(clash, { code: 'DUPLICATE_SKU' });
    t.equal((await dataOf(200, get(a.id))).sku, a.sku, 'the failed PUT changed nothing');
    // Raw client: the typed client sends JSON only, and this body is CSV.
    await api.put(`/api/v1/products/${a.id}`, { raw: 'a,b', headers: { 'content-type': 'text/csv' }, token: writer, expect: 415 });
    await expectStatus(413, put(a.id, { ...full, description: 'd'.repeat(1_100_000) }, writer));
  });

  t.test('PATCH changes present fields only; null and absent leave them unchanged', async (t) => {
    const p = await createProduct(server, { description: 'keep me', stockQuantity: 3 });
    const r = await dataOf(200, patch(p.id, { price: 12.34, description: null }, writer));
    t.match(r, { name: p.name, description: 'keep me', price: 12.34, stockQuantity: 3, sku: p.sku });
    const zero = await dataOf(200, patch(p.id, { stockQuantity: 0 }, writer));
    t.match(zero, { stockQuantity: 0, inStock: false, price: 12.34 });
    const same = await dataOf(200, patch(p.id, {}, writer));
    t.equal(same.updatedAt, zero.updatedAt, '{} changes nothing');
  });

  t.test('PATCH errors: 400 for a present invalid value or unknown field, 401, 404, 415', async (t) => {
    const p = await createProduct(server);
    t.match((await errorOf(400, patch(p.id, { name: 'x' }, writer))).errors, [{ field: '/name' }]);
    t.match((await errorOf(400, patch(p.id, { price: 1.234 }, writer))).errors, [{ field: '/price' }]);
    // Raw client: `sku` is not a property of the patch body, so the typed client refuses it.
    t.match((await api.patch(`/api/v1/products/${p.id}`, { body: { sku: 'NEW-1' }, token: writer, expect: 400 })).body.errors, [
      { field: '/sku' },
    ]);
    await expectStatus(401, patch(p.id, { name: 'Valid' }));
    await expectStatus(404, patch(UNKNOWN, { name: 'Valid' }, writer));
    // Raw client: the typed client sends JSON only, and this body is CSV.
    await api.patch(`/api/v1/products/${p.id}`, { raw: 'name\nx', headers: { 'content-type': 'text/csv' }, token: writer, expect: 415 });
    await expectStatus(413, patch(p.id, { description: 'y'.repeat(1_100_000) }, writer));
    t.same(await dataOf(200, get(p.id)), p, 'rejected patches changed nothing');
  });

  t.test('DELETE: ADMIN only, 204 then 404', async (t) => {
    const p = await createProduct(server);
    await expectStatus(401, remove(p.id));
    const forbidden = await errorOf(403, remove(p.id, user));
    t.equal(forbidden.type, '/problems/forbidden');
    const r = await expectStatus(204, remove(p.id, admin));
    t.equal(await r.response.text(), '');
    await expectStatus(404, get(p.id));
    await expectStatus(404, remove(p.id, admin));
    await expectStatus(400, remove('bad-id', admin));
  });

  t.test('prices stay exact decimals', async (t) => {
    const p = await createProduct(server, { price: 0.1 });
    const text = await dataOf(
      200,
      v1.PATCH('/api/v1/products/{id}', { params: path(p.id), body: { price: 1234567890.07 }, headers: bearer(writer), parseAs: 'text' }),
    );
    t.ok(text.includes('"price":1234567890.07'));
    for (const price of [9999999999.99, 0.07, 19.99, 1000000.01]) {
      const ok = await dataOf(200, patch(p.id, { price }, writer));
      t.equal(ok.price, price, `${price} accepted exactly`);
    }
    for (const price of [10.999, 0.005, 1234567890.071]) {
      const bad = await errorOf(400, patch(p.id, { price }, writer));
      t.match(bad.errors, [{ field: '/price' }], `${price} rejected`);
    }
    await expectStatus(200, patch(p.id, { price: 1234567890.07 }, writer));
    const row = await server.database.db.selectFrom('products').select('price').where('id', '=', p.id).executeTakeFirstOrThrow();
    t.equal(row.price, '1234567890.07');
  });
});
