// test-suite: once (the REST slice's validation and representation)
import t from 'tap';
import { sharedServer } from '../helpers/server.ts';

const valid = {
  name: 'Walnut Desk',
  description: 'Solid walnut, oiled.',
  price: 1249.99,
  sku: 'DESK-WAL-01',
  category: 'HOME',
  stockQuantity: 4,
  attributes: [
    { key: 'material', value: 'walnut' },
    { key: 'width', value: '160cm' },
  ],
};

t.test('POST /api/v1/products validates every CreateProductRequest rule', async (t) => {
  const { api, token } = await sharedServer();
  const auth = await token('catalog-admin', ['ADMIN']);

  const broken: [string, Record<string, unknown>, string][] = [
    ['name missing', { ...valid, name: undefined }, '/name'],
    ['name blank', { ...valid, name: '   ' }, '/name'],
    ['name too short', { ...valid, name: 'A' }, '/name'],
    ['name too long', { ...valid, name: 'x'.repeat(201) }, '/name'],
    ['description too long', { ...valid, description: 'x'.repeat(5001) }, '/description'],
    ['price missing', { ...valid, price: undefined }, '/price'],
    ['price below minimum', { ...valid, price: 0 }, '/price'],
    ['price negative', { ...valid, price: -5 }, '/price'],
    ['price with 3 fraction digits', { ...valid, price: 10.999 }, '/price'],
    ['price with 11 integer digits', { ...valid, price: 12345678901 }, '/price'],
    ['price as text', { ...valid, price: '10.00' }, '/price'],
    ['sku missing', { ...valid, sku: undefined }, '/sku'],
    ['sku lowercase', { ...valid, sku: 'desk-01' }, '/sku'],
    ['sku too short', { ...valid, sku: 'AB' }, '/sku'],
    ['sku too long', { ...valid, sku: 'A'.repeat(21) }, '/sku'],
    ['sku blank', { ...valid, sku: '   ' }, '/sku'],
    ['category missing', { ...valid, category: undefined }, '/category'],
    ['category unknown', { ...valid, category: 'WEAPONS' }, '/category'],
    ['stock negative', { ...valid, stockQuantity: -1 }, '/stockQuantity'],
    ['stock fractional', { ...valid, stockQuantity: 1.5 }, '/stockQuantity'],
    ['attribute key blank', { ...valid, attributes: [{ key: ' ', value: 'x' }] }, '/attributes/0/key'],
    ['attribute value missing', { ...valid, attributes: [{ key: 'k' }] }, '/attributes/0/value'],
    ['attribute value blank', { ...valid, attributes: [{ key: 'k', value: '' }] }, '/attributes/0/value'],
  ];
  for (const [label, body, field] of broken) {
    const r = await api.post('/api/v1/products', { body, token: auth, expect: 400 });
    t.equal(r.headers.get('content-type'), 'application/problem+json; charset=utf-8', label);
    t.match(r.body, { status: 400, type: '/problems/validation-error', code: 'VALIDATION_ERROR' }, label);
    const fields = r.body.errors.map((e: { field: string }) => e.field);
    t.ok(fields.includes(field), `${label}: errors name ${field} (got ${fields.join(', ')})`);
  }

  t.test('malformed JSON is a 400 problem', async (t) => {
    const r = await api.post('/api/v1/products', {
      raw: '{"name": ',
      headers: { 'content-type': 'application/json' },
      token: auth,
      expect: 400,
    });
    t.match(r.body, { status: 400, type: '/problems/malformed-json', detail: /not valid JSON/ });
  });

  t.test('a non-JSON body is a 415 problem', async (t) => {
    const r = await api.post('/api/v1/products', {
      raw: 'id,name\n1,x',
      headers: { 'content-type': 'text/csv' },
      token: auth,
      expect: 415,
    });
    t.match(r.body, { status: 415 });
  });

  t.test('a valid product is created, located and read back', async (t) => {
    const created = await api.post('/api/v1/products', { body: valid, token: auth, expect: 201 });
    t.match(created.body, {
      name: valid.name,
      price: 1249.99,
      sku: valid.sku,
      category: 'HOME',
      stockQuantity: 4,
      inStock: true,
      attributes: valid.attributes,
    });
    const location = created.headers.get('location')!;
    t.equal(location, `/api/v1/products/${created.body.id}`);
    const fetched = await api.get(location, { expect: 200 });
    t.same(fetched.body, created.body);
  });

  t.test('inStock follows stockQuantity and stock defaults to 0', async (t) => {
    const r = await api.post('/api/v1/products', {
      body: { name: 'Pen', price: 0.01, sku: 'PEN-1', category: 'OTHER' },
      token: auth,
      expect: 201,
    });
    t.equal(r.body.stockQuantity, 0);
    t.equal(r.body.inStock, false);
    t.equal(r.body.price, 0.01);
  });

  t.test('the largest allowed price is stored exactly', async (t) => {
    const r = await api.post('/api/v1/products', { body: { ...valid, sku: 'MAX-PRICE', price: 9999999999.99 }, token: auth, expect: 201 });
    t.equal(r.text.includes('"price":9999999999.99'), true);
  });

  t.test('a duplicate SKU is a 409 problem', async (t) => {
    const r = await api.post('/api/v1/products', { body: valid, token: auth, expect: 409 });
    t.match(r.body, { status: 409, detail: /DESK-WAL-01/ });
  });

  t.test('unknown and malformed ids', async (t) => {
    await api.get('/api/v1/products/3f1d0f3e-1c2b-4a5d-9e8f-0a1b2c3d4e5f', { expect: 404 });
    const r = await api.get('/api/v1/products/not-a-uuid', { expect: 400 });
    t.match(r.body.errors, [{ field: 'path.id' }]);
  });
});
