// test-suite: once (ETags and preconditions are computed in the service)
import t from 'tap';
import type { components } from '../../generated/openapi/rest-v1.ts';
import { sharedServer } from '../helpers/server.ts';
import { bearer, dataOf, expectStatus } from '../helpers/typed-client.ts';
import { createProduct, productBody } from './fixtures.ts';

type Patch = components['schemas']['PatchProductRequest'];
type Create = components['schemas']['CreateProductRequest'];

t.test('product PUT and PATCH honour If-Match', async (t) => {
  const server = await sharedServer();
  const { api, v1, v2 } = server;
  const writer = await server.token('catalog-admin', ['ADMIN']);
  const path = (id: string) => ({ path: { id } });
  const ifMatch = (tag?: string) => ({ ...bearer(writer), ...(tag ? { 'if-match': tag } : {}) });
  const get = (id: string) => v1.GET('/api/v1/products/{id}', { params: path(id) });
  const patch = (id: string, body: Patch, tag?: string) =>
    v1.PATCH('/api/v1/products/{id}', { params: path(id), body, headers: ifMatch(tag) });
  const put = (id: string, body: Create, tag?: string) =>
    v1.PUT('/api/v1/products/{id}', { params: path(id), body, headers: ifMatch(tag) });
  const etag = async (call: Promise<{ response: Response }>) => (await expectStatus(200, call)).response.headers.get('etag');

  t.test('GET, POST, PUT and PATCH carry the version as a strong ETag', async (t) => {
    const created = await expectStatus(201, v1.POST('/api/v1/products', { body: productBody(), headers: bearer(writer) }));
    t.equal(created.response.headers.get('etag'), '"1"');
    const id = created.data!.id;
    t.equal(await etag(get(id)), '"1"');
    t.equal(await etag(v1.GET('/api/v1/products/{id}', { params: { path: { id }, query: { format: 'xml' } }, parseAs: 'text' })), '"1"');
    t.equal(await etag(patch(id, { name: 'Renamed' })), '"2"');
    t.equal(await etag(put(id, productBody())), '"3"');
    t.equal(await etag(patch(id, {})), '"3"', 'an empty PATCH changes nothing');
  });

  t.test('a stale If-Match is 412 with the current ETag and leaves the product unchanged', async (t) => {
    const product = await createProduct(server, { name: 'Original' });
    await expectStatus(200, patch(product.id, { name: 'First edit' }, '"1"'));
    const writes: [string, (tag: string) => Promise<{ response: Response; error?: unknown }>][] = [
      ['put', (tag) => put(product.id, productBody({ name: 'Second edit' }), tag)],
      ['patch', (tag) => patch(product.id, { name: 'Second edit' }, tag)],
      ['patch', (tag) => patch(product.id, {}, tag)],
    ];
    for (const [method, write] of writes) {
      for (const tag of ['"1"', 'W/"2"', '2', '"9999999999999"']) {
        const r = await expectStatus(412, write(tag));
        t.match(r.error, { type: '/problems/precondition-failed', code: 'VERSION_MISMATCH' }, `${method} ${tag}`);
        t.equal(r.response.headers.get('etag'), '"2"');
      }
    }
    const stored = await expectStatus(200, get(product.id));
    t.equal(stored.data!.name, 'First edit');
    t.equal(stored.response.headers.get('etag'), '"2"');

    const replaced = await expectStatus(200, put(product.id, productBody({ name: 'Second edit' }), '"2"'));
    t.equal(replaced.data!.name, 'Second edit');
    t.equal(replaced.response.headers.get('etag'), '"3"');
    t.equal(await etag(patch(product.id, { price: 5 }, '*')), '"4"');
    await expectStatus(404, patch('3f1d0f3e-1c2b-4a5d-9e8f-0a1b2c3d4e5f', { name: 'x1' }, '"1"'));
    await expectStatus(400, put(product.id, productBody({ sku: 'bad sku' }), '"1"'));
  });

  t.test('v2 shares the tag: ETag on GET, If-Match on PATCH', async (t) => {
    const product = await createProduct(server);
    const getV2 = () => v2.GET('/api/v2/products/{id}', { params: path(product.id) });
    const patchV2 = (name: string, tag: string) =>
      v2.PATCH('/api/v2/products/{id}', { params: path(product.id), body: { name }, headers: ifMatch(tag) });
    t.equal(await etag(getV2()), '"1"');
    await expectStatus(200, patch(product.id, { name: 'Changed in v1' }));
    const stale = await expectStatus(412, patchV2('Changed in v2', '"1"'));
    t.equal(stale.response.headers.get('etag'), '"2"');
    t.equal((await dataOf(200, getV2())).name, 'Changed in v1');
    t.equal(await etag(patchV2('Changed in v2', '"2"')), '"3"');
    // Raw client: `quantity` is left out (0 by default), which openapi-typescript types as required.
    const created = await api.post('/api/v2/products', {
      body: { name: 'V2 product', price: { amount: '1.00', currency: 'USD' }, sku: 'V2-ETAG-1', category: 'OTHER' },
      token: writer,
      expect: 201,
    });
    t.equal(created.headers.get('etag'), '"1"');
  });

  t.test('concurrent writers with the same If-Match: exactly one wins', async (t) => {
    const product = await createProduct(server);
    const attempts = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        i % 2 ? patch(product.id, { name: `Writer ${i}` }, '"1"') : put(product.id, productBody({ name: `Writer ${i}` }), '"1"'),
      ),
    );
    t.same(attempts.map((r) => r.response.status).sort(), [200, 412, 412, 412, 412, 412]);
    const winner = attempts.find((r) => r.response.status === 200)!;
    const stored = await expectStatus(200, get(product.id));
    t.same(stored.data, winner.data, 'the stored product is the winner’s');
    t.equal(stored.response.headers.get('etag'), '"2"');
  });
});
