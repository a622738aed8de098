// test-suite: once (the v2 representation and validation)
import t from 'tap';
import type { components } from '../../generated/openapi/rest-v2.ts';
import { sharedServer } from '../helpers/server.ts';
import { bearer, dataOf, errorOf, expectStatus } from '../helpers/typed-client.ts';
import { createProduct } from './fixtures.ts';

const UNKNOWN = '3f1d0f3e-1c2b-4a5d-9e8f-0a1b2c3d4e5f';
const body: components['schemas']['CreateProductRequestV2'] = {
  name: 'Desk Lamp',
  description: 'LED',
  price: { amount: '19.90', currency: 'USD' },
  sku: 'V2-LAMP',
  category: 'HOME',
  quantity: 3,
  attributes: { colour: 'black', watts: '8' },
};

t.test('REST v2 serves the same products in its own shapes', async (t) => {
  const server = await sharedServer();
  const { api, v2 } = server;
  const user = await server.token('alice');
  const writer = await server.token('catalog-admin', ['ADMIN']);
  const admin = await server.token('root', ['ADMIN']);
  const path = (id: string) => ({ path: { id } });
  const create = (product: components['schemas']['CreateProductRequestV2'], token?: string) =>
    v2.POST('/api/v2/products', { body: product, headers: bearer(token) });
  const patch = (id: string, changes: components['schemas']['PatchProductRequestV2'], token?: string) =>
    v2.PATCH('/api/v2/products/{id}', { params: path(id), body: changes, headers: bearer(token) });
  const get = (id: string, options: { token?: string; format?: string; accept?: string } = {}) =>
    v2.GET('/api/v2/products/{id}', {
      params: { path: { id }, query: { format: options.format } },
      headers: { ...bearer(options.token), ...(options.accept ? { accept: options.accept } : {}) },
    });
  const list = (query: { sort?: string[]; format?: string } = {}, token?: string) =>
    v2.GET('/api/v2/products', { params: { query }, headers: bearer(token) });
  const search = (query: { q: string; minPrice?: number; maxPrice?: number; format?: string }, token?: string) =>
    v2.GET('/api/v2/products/search', { params: { query }, headers: bearer(token) });
  const remove = (id: string, token?: string) => v2.DELETE('/api/v2/products/{id}', { params: path(id), headers: bearer(token) });

  t.test('create in v2, read in v1 and v2', async (t) => {
    const created = await expectStatus(201, create(body, writer));
    const product = created.data!;
    t.equal(created.response.headers.get('location'), `/api/v2/products/${product.id}`);
    t.match(product, {
      price: { amount: '19.90', currency: 'USD' },
      inventory: { quantity: 3, inStock: true },
      attributes: { colour: 'black', watts: '8' },
      images: [],
    });
    t.same(Object.keys(product.attributes), ['colour', 'watts'], 'attribute order kept');
    const v1 = await dataOf(200, server.v1.GET('/api/v1/products/{id}', { params: path(product.id) }));
    t.match(v1, {
      price: 19.9,
      stockQuantity: 3,
      inStock: true,
      attributes: [
        { key: 'colour', value: 'black' },
        { key: 'watts', value: '8' },
      ],
    });
    t.same(await dataOf(200, get(product.id)), product);
  });

  t.test('v1 products appear in v2 lists and search', async (t) => {
    const p = await createProduct(server, { name: 'Walnut shelf', price: 1234567890.07, stockQuantity: 0 });
    const page = await dataOf(200, list({ sort: ['quantity,asc'] }));
    t.match(page.content[0], { id: p.id, price: { amount: '1234567890.07' }, inventory: { quantity: 0, inStock: false } });
    t.match(page.page, { number: 0, size: 20, totalElements: 2 });
    const found = await dataOf(200, search({ q: 'walnut', maxPrice: 9999999999 }));
    t.same(
      found.content.map((x) => x.id),
      [p.id],
    );
  });

  t.test('writes are the platform ADMIN’s: a signed-in user gets 403', async (t) => {
    await expectStatus(403, create({ ...body, sku: 'V2-USER-1' }, user));
    const made = await dataOf(201, create({ ...body, sku: 'V2-USER-2' }, writer));
    await expectStatus(
      403,
      v2.PATCH('/api/v2/products/{id}', { params: { path: { id: made.id } }, body: { name: 'Renamed' }, headers: bearer(user) }),
    );
  });

  t.test('create errors: 400, 401, 409, 413, 415', async (t) => {
    for (const [bad, field] of [
      [{ ...body, sku: 'V2-X1', price: { amount: '0.00', currency: 'USD' } }, '/price/amount'],
      [{ ...body, sku: 'V2-X2', price: { amount: '1.5', currency: 'USD' } }, '/price/amount'],
      [{ ...body, sku: 'V2-X4', attributes: { colour: ' ' } }, '/attributes/colour'],
      [{ ...body, sku: 'V2-X5', quantity: -1 }, '/quantity'],
    ] as const) {
      const r = await errorOf(400, create(bad, writer));
      t.ok(
        r.errors?.some((e) => e.field === field),
        `${field} in ${JSON.stringify(r.errors)}`,
      );
    }
    // Raw client: a currency outside the enum and a v1 property are bodies the typed client refuses.
    for (const [bad, field] of [
      [{ ...body, sku: 'V2-X3', price: { amount: '1.50', currency: 'EUR' } }, '/price/currency'],
      [{ ...body, sku: 'V2-X6', stockQuantity: 1 }, '/stockQuantity'],
    ] as const) {
      const r = await api.post('/api/v2/products', { body: bad, token: writer, expect: 400 });
      t.ok(
        r.body.errors.some((e: any) => e.field === field),
        `${field} in ${JSON.stringify(r.body.errors)}`,
      );
    }
    await expectStatus(401, create(body));
    t.match(await errorOf(409, create(body, writer)), { code: 'DUPLICATE_SKU' });
    await expectStatus(413, create({ ...body, description: 'x'.repeat(1_100_000) }, writer));
    // Raw client: the typed client sends JSON only, and this body is CSV.
    await api.post('/api/v2/products', { raw: 'a,b', headers: { 'content-type': 'text/csv' }, token: writer, expect: 415 });
  });

  t.test('patch: null or absent unchanged; errors 400, 401, 404, 413, 415', async (t) => {
    const p = await dataOf(201, create({ ...body, sku: 'V2-PATCH' }, writer));
    const r = await dataOf(200, patch(p.id, { price: { amount: '5.05', currency: 'USD' }, name: null }, writer));
    t.match(r, { name: 'Desk Lamp', price: { amount: '5.05' }, inventory: { quantity: 3 } });
    const q = await dataOf(200, patch(p.id, { quantity: 0 }, writer));
    t.match(q.inventory, { quantity: 0, inStock: false });
    await expectStatus(400, patch(p.id, { price: { amount: 'abc', currency: 'USD' } }, writer));
    await expectStatus(401, patch(p.id, { quantity: 1 }));
    await expectStatus(404, patch(UNKNOWN, { quantity: 1 }, writer));
    await expectStatus(413, patch(p.id, { description: 'x'.repeat(1_100_000) }, writer));
    // Raw client: the typed client sends JSON only, and this body is plain text.
    await api.patch(`/api/v2/products/${p.id}`, { raw: 'q', headers: { 'content-type': 'text/plain' }, token: writer, expect: 415 });
  });

  t.test('get, list and search errors: 400, 401, 404, 406', async (t) => {
    await expectStatus(404, get(UNKNOWN));
    await expectStatus(400, get('bad'));
    await expectStatus(401, get(UNKNOWN, { token: 'bad' }));
    const any = (await dataOf(200, list())).content[0]!;
    await expectStatus(406, get(any.id, { format: 'xml' }));
    await expectStatus(406, get(any.id, { accept: 'application/xml' }));
    await expectStatus(406, list({ format: 'csv' }));
    await expectStatus(400, list({ sort: ['stockQuantity,asc'] }));
    await expectStatus(401, list({}, 'bad'));
    await expectStatus(406, search({ q: 'a', format: 'xml' }));
    // Raw client: `q` is required, so the typed client cannot leave it out.
    await api.get('/api/v2/products/search', { expect: 400 });
    await expectStatus(400, search({ q: 'a', minPrice: 3, maxPrice: 2 }));
    await expectStatus(401, search({ q: 'a' }, 'bad'));
  });

  t.test('delete: ADMIN only, 204 then 404 in both versions', async (t) => {
    const p = await dataOf(201, create({ ...body, sku: 'V2-DEL' }, writer));
    await expectStatus(401, remove(p.id));
    await expectStatus(403, remove(p.id, user));
    await expectStatus(400, remove('bad', admin));
    await expectStatus(204, remove(p.id, admin));
    await expectStatus(404, remove(p.id, admin));
    await expectStatus(404, server.v1.GET('/api/v1/products/{id}', { params: path(p.id) }));
  });
});
