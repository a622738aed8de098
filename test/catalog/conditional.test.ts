import t from 'tap';
import { startServer } from '../helpers/server.ts';
import { createProduct, productBody } from './fixtures.ts';

t.test('product PUT and PATCH honour If-Match', async (t) => {
  const server = await startServer(t);
  const { api } = server;
  const user = await server.token('alice');

  t.test('GET, POST, PUT and PATCH carry the version as a strong ETag', async (t) => {
    const created = await api.post('/api/v1/products', { body: productBody(), token: user, expect: 201 });
    t.equal(created.headers.get('etag'), '"1"');
    const path = `/api/v1/products/${created.body.id}`;
    t.equal((await api.get(path, { expect: 200 })).headers.get('etag'), '"1"');
    t.equal((await api.get(`${path}?format=xml`, { expect: 200 })).headers.get('etag'), '"1"');
    t.equal((await api.patch(path, { body: { name: 'Renamed' }, token: user, expect: 200 })).headers.get('etag'), '"2"');
    t.equal((await api.put(path, { body: productBody(), token: user, expect: 200 })).headers.get('etag'), '"3"');
    t.equal((await api.patch(path, { body: {}, token: user, expect: 200 })).headers.get('etag'), '"3"', 'an empty PATCH changes nothing');
  });

  t.test('a stale If-Match is 412 with the current ETag and leaves the product unchanged', async (t) => {
    const product = await createProduct(server, { name: 'Original' });
    const path = `/api/v1/products/${product.id}`;
    await api.patch(path, { body: { name: 'First edit' }, headers: { 'if-match': '"1"' }, token: user, expect: 200 });
    for (const [method, body] of [
      ['put', productBody({ name: 'Second edit' })],
      ['patch', { name: 'Second edit' }],
      ['patch', {}],
    ] as const) {
      for (const tag of ['"1"', 'W/"2"', '2', '"9999999999999"']) {
        const r = await api[method](path, { body, headers: { 'if-match': tag }, token: user, expect: 412 });
        t.match(r.body, { type: '/problems/precondition-failed', code: 'VERSION_MISMATCH' }, `${method} ${tag}`);
        t.equal(r.headers.get('etag'), '"2"');
      }
    }
    const stored = await api.get(path, { expect: 200 });
    t.equal(stored.body.name, 'First edit');
    t.equal(stored.headers.get('etag'), '"2"');

    const replaced = await api.put(path, {
      body: productBody({ name: 'Second edit' }),
      headers: { 'if-match': '"2"' },
      token: user,
      expect: 200,
    });
    t.equal(replaced.body.name, 'Second edit');
    t.equal(replaced.headers.get('etag'), '"3"');
    t.equal(
      (await api.patch(path, { body: { price: 5 }, headers: { 'if-match': '*' }, token: user, expect: 200 })).headers.get('etag'),
      '"4"',
    );
    await api.patch('/api/v1/products/3f1d0f3e-1c2b-4a5d-9e8f-0a1b2c3d4e5f', {
      body: { name: 'x1' },
      headers: { 'if-match': '"1"' },
      token: user,
      expect: 404,
    });
    await api.put(path, { body: productBody({ sku: 'bad sku' }), headers: { 'if-match': '"1"' }, token: user, expect: 400 });
  });

  t.test('v2 shares the tag: ETag on GET, If-Match on PATCH', async (t) => {
    const product = await createProduct(server);
    const v2 = `/api/v2/products/${product.id}`;
    t.equal((await api.get(v2, { expect: 200 })).headers.get('etag'), '"1"');
    await api.patch(`/api/v1/products/${product.id}`, { body: { name: 'Changed in v1' }, token: user, expect: 200 });
    const stale = await api.patch(v2, { body: { name: 'Changed in v2' }, headers: { 'if-match': '"1"' }, token: user, expect: 412 });
    t.equal(stale.headers.get('etag'), '"2"');
    t.equal((await api.get(v2, { expect: 200 })).body.name, 'Changed in v1');
    const patched = await api.patch(v2, { body: { name: 'Changed in v2' }, headers: { 'if-match': '"2"' }, token: user, expect: 200 });
    t.equal(patched.headers.get('etag'), '"3"');
    const created = await api.post('/api/v2/products', {
      body: { name: 'V2 product', price: { amount: '1.00', currency: 'USD' }, sku: 'V2-ETAG-1', category: 'OTHER' },
      token: user,
      expect: 201,
    });
    t.equal(created.headers.get('etag'), '"1"');
  });

  t.test('concurrent writers with the same If-Match: exactly one wins', async (t) => {
    const product = await createProduct(server);
    const path = `/api/v1/products/${product.id}`;
    const attempts = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        i % 2
          ? api.patch(path, { body: { name: `Writer ${i}` }, headers: { 'if-match': '"1"' }, token: user })
          : api.put(path, { body: productBody({ name: `Writer ${i}` }), headers: { 'if-match': '"1"' }, token: user }),
      ),
    );
    t.same(attempts.map((r) => r.status).sort(), [200, 412, 412, 412, 412, 412]);
    const winner = attempts.find((r) => r.status === 200)!;
    const stored = await api.get(path, { expect: 200 });
    t.same(stored.body, winner.body, 'the stored product is the winner’s');
    t.equal(stored.headers.get('etag'), '"2"');
  });
});
