// test-suite: once (what is compared is the HTTP layer the mock borrows; the database behind the real server does not change it).
/**
 * The mock server (`npm run mock`) answers like the real server: the same requests, sent to both,
 * get the same status, the same media type and bodies of the same shape (keys and element kinds,
 * not values: the mock's values are its examples). The real server answers from data this test
 * creates (a product, a file, a SCIM tenant); the mock, which stores nothing, from its examples
 * (`Prefer: code=404` where the real server's answer is a 404 of data that does not exist).
 */
import { randomUUID } from 'node:crypto';
import t from 'tap';
import { XMLParser } from 'fast-xml-parser';
import { createMockServer } from '../../scripts/mock/mock-server.ts';
import { loadConfig } from '../../src/config.ts';
import { createProduct, multipart } from '../catalog/fixtures.ts';
import { scimTenant } from '../helpers/scim.ts';
import { sharedServer } from '../helpers/server.ts';

interface Probe {
  name: string;
  path: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /** Headers only the mock gets (a `Prefer` standing for data the mock cannot lack). */
  mockHeaders?: Record<string, string>;
}

interface Answer {
  status: number;
  mediaType: string;
  shape: unknown;
}

const xml = new XMLParser({ parseTagValue: false });

/** Keys and kinds, two levels deep: objects by their sorted keys, lists by their first element, scalars as `value`. */
function shapeOf(value: unknown, depth = 3): unknown {
  if (Array.isArray(value)) return depth > 1 && value.length ? [shapeOf(value[0], depth - 1)] : 'list';
  if (value && typeof value === 'object') {
    const keys = Object.keys(value).sort();
    return depth > 1 ? Object.fromEntries(keys.map((k) => [k, shapeOf((value as Record<string, unknown>)[k], depth - 1)])) : keys;
  }
  return 'value';
}

async function answerOf(response: Response): Promise<Answer> {
  const mediaType = (response.headers.get('content-type') ?? '').split(';')[0]!.trim();
  const text = await response.text();
  let shape: unknown = text.length > 0 ? 'bytes' : 'empty';
  if (/json$/.test(mediaType)) shape = shapeOf(JSON.parse(text));
  else if (mediaType === 'application/xml') shape = shapeOf(xml.parse(text));
  else if (mediaType === 'text/csv') shape = text.split('\r\n')[0];
  return { status: response.status, mediaType, shape };
}

t.test('the mock answers the requests the real server answers, alike', async (t) => {
  const server = await sharedServer();
  const mock = await createMockServer(
    loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', AUTH_JWT_SECRET: 'mock-vs-server-test-secret-at-least-32-characters' }),
  );
  await mock.listen({ port: 0, host: '127.0.0.1' });
  t.teardown(() => mock.close());
  const address = mock.server.address();
  const mockUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;

  // With an attribute, as the document's example has: an empty list is an empty element in XML.
  const product = await createProduct(server, { attributes: [{ key: 'color', value: 'black' }] });
  const user = `Bearer ${await server.token('mock-compare', ['USER'])}`;
  const upload = await fetch(`${server.baseUrl}/api/v1/files`, {
    method: 'POST',
    headers: { authorization: user },
    body: multipart('file', Buffer.from('some bytes'), 'notes.bin'),
  });
  t.equal(upload.status, 201);
  const file = (await upload.json()) as { id: string };
  const scim = await scimTenant(server, 'mock-compare');
  const graphql = (query: string): Pick<Probe, 'method' | 'headers' | 'body'> => ({
    method: 'POST',
    headers: { authorization: user, 'content-type': 'application/json' },
    body: JSON.stringify({ query }),
  });

  const probes: Probe[] = [
    { name: 'v1 listing, JSON', path: '/api/v1/products' },
    { name: 'v1 listing, XML by Accept', path: '/api/v1/products', headers: { accept: 'application/xml' } },
    { name: 'v1 listing, XML by format', path: '/api/v1/products?format=xml' },
    { name: 'v1 listing, CSV by Accept', path: '/api/v1/products', headers: { accept: 'text/csv' } },
    { name: 'v1 listing, CSV by format', path: '/api/v1/products?format=csv' },
    { name: 'v1 product, XML', path: `/api/v1/products/${product.id}?format=xml` },
    { name: 'v1 listing, format=yaml', path: '/api/v1/products?format=yaml' },
    { name: 'v1 listing, unknown Accept', path: '/api/v1/products', headers: { accept: 'application/vnd.unknown' } },
    { name: 'v2 listing, JSON', path: '/api/v2/products' },
    { name: 'v2 listing, XML (v2 is JSON only)', path: '/api/v2/products', headers: { accept: 'application/xml' } },
    { name: 'v2 listing, CSV (v2 is JSON only)', path: '/api/v2/products?format=csv' },
    { name: 'v2 listing, format=yaml', path: '/api/v2/products?format=yaml' },
    { name: 'a bad parameter', path: '/api/v1/products/not-a-uuid' },
    {
      name: 'a missing product',
      path: `/api/v1/products/${randomUUID()}`,
      mockHeaders: { prefer: 'code=404' },
    },
    { name: 'a file download', path: `/api/v1/files/${file.id}`, headers: { authorization: user } },
    { name: 'a file download, format=json', path: `/api/v1/files/${file.id}?format=json`, headers: { authorization: user } },
    { name: 'SCIM without a token', path: '/scim/v2/Users' },
    {
      name: 'SCIM, a missing user',
      path: `/scim/v2/Users/${randomUUID()}`,
      headers: { authorization: `Bearer ${scim.token}` },
      mockHeaders: { prefer: 'code=404' },
    },
    { name: 'SCIM, a bad parameter', path: '/scim/v2/Users?count=many', headers: { authorization: `Bearer ${scim.token}` } },
    { name: 'SCIM, no such endpoint', path: '/scim/v2/Nothing', headers: { authorization: `Bearer ${scim.token}` } },
    { name: 'GraphQL query', path: '/graphql', ...graphql('{ users(size: 1) { totalElements totalPages hasNext } }') },
    { name: 'GraphQL, an invalid query', path: '/graphql', ...graphql('{ noSuchField }') },
  ];

  for (const probe of probes) {
    const init = { method: probe.method ?? 'GET', headers: probe.headers ?? {}, ...(probe.body ? { body: probe.body } : {}) };
    const real = await answerOf(await fetch(`${server.baseUrl}${probe.path}`, init));
    const mocked = await answerOf(await fetch(`${mockUrl}${probe.path}`, { ...init, headers: { ...init.headers, ...probe.mockHeaders } }));
    t.same(mocked, real, probe.name);
  }
});
