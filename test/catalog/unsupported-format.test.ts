// test-suite: once (content negotiation)
/** `?format=` naming no offered type is a 406 like an unmatched Accept, on every operation taking format. */
import t from 'tap';
import { loadOpenApiDocument } from '../../src/http/openapi-docs.ts';
import { sharedServer } from '../helpers/server.ts';
import { createProduct, multipart, ONE_PIXEL_PNG } from './fixtures.ts';

t.test('an unsupported format is a 406 naming the formats of the operation, on every operation that takes format', async (t) => {
  const server = await sharedServer();
  const { api } = server;
  const writer = await server.token('catalog-admin', ['ADMIN']);
  const product = await createProduct(server);
  const image = (
    await api.post(`/api/v1/products/${product.id}/images`, {
      raw: multipart('file', ONE_PIXEL_PNG, 'a.png', 'image/png'),
      token: writer,
      expect: 201,
    })
  ).body;
  const customer = (
    await api.post('/api/v1/customers', { body: { name: 'Alice', email: 'alice@example.com' }, token: writer, expect: 201 })
  ).body;
  const order = (
    await api.post('/api/v1/orders', {
      body: { customerId: customer.id, items: [{ productId: product.id, quantity: 1 }] },
      token: writer,
      expect: 201,
    })
  ).body;
  const file = (
    await api.post('/api/v1/files', { raw: multipart('file', Buffer.from('x'), 'a.txt', 'text/plain'), token: writer, expect: 201 })
  ).body;
  const ids: Record<string, string> = {
    '/api/v1/products/{id}': product.id,
    '/api/v2/products/{id}': product.id,
    '/api/v1/customers/{id}': customer.id,
    '/api/v1/orders/{id}': order.id,
    '{imageId}': image.id,
    '{fileId}': file.id,
  };
  const FORMATS: Record<string, string> = { 'application/json': 'json', 'application/xml': 'xml', 'text/csv': 'csv' };
  let swept = 0;
  for (const name of ['rest-v1', 'rest-v2', 'posts', 'ops']) {
    const doc = loadOpenApiDocument(name);
    for (const [template, item] of Object.entries<any>(doc.paths)) {
      const op = item.get;
      if (!op?.parameters?.some((p: any) => p.$ref === '#/components/parameters/format' || p.name === 'format')) continue;
      let path = template;
      for (const [pattern, id] of Object.entries(ids))
        path = pattern.startsWith('{') ? path.replace(pattern, id) : path.replace(pattern, pattern.replace('{id}', id));
      if (path.includes('{')) throw new Error(`no fixture for ${template}`);
      const query = template.endsWith('/search') ? 'q=a&format=yaml' : 'format=yaml';
      const ok = op.responses['200'].$ref ? doc.components.responses[op.responses['200'].$ref.split('/').pop()] : op.responses['200'];
      const offered = Object.keys(ok.content)
        .map((type) => FORMATS[type])
        .filter(Boolean);
      const expected = offered.length ? `format: ${[...new Set(offered)].join(', ')}` : 'no format value selects it';
      const r = await api.get(`${path}?${query}`, { token: writer, expect: 406 });
      t.match(r.body, { type: '/problems/not-acceptable', status: 406 }, op.operationId);
      t.ok(
        r.body.detail.startsWith('format=yaml is not available') && r.body.detail.endsWith(expected),
        `${op.operationId}: ${r.body.detail}`,
      );
      swept += 1;
    }
  }
  t.equal(swept, 13, 'every GET declaring format was tried');
});
