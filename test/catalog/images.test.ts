// test-suite: once (upload parsing and image checks happen before the database)
import t from 'tap';
import { sharedServer } from '../helpers/server.ts';
import { GIF_3X2, ONE_PIXEL_PNG, createProduct, multipart } from './fixtures.ts';

const UNKNOWN = '3f1d0f3e-1c2b-4a5d-9e8f-0a1b2c3d4e5f';

t.test('product images', async (t) => {
  const server = await sharedServer();
  const { api } = server;
  const user = await server.token('alice');
  const writer = await server.token('catalog-admin', ['ADMIN']);
  const product = await createProduct(server);
  const path = `/api/v1/products/${product.id}/images`;

  t.test('a PNG is stored, served back byte for byte, and listed on the product', async (t) => {
    // The declared type and name lie: the bytes decide.
    const r = await api.post(path, { raw: multipart('file', ONE_PIXEL_PNG, 'photo.txt', 'text/plain'), token: writer, expect: 201 });
    t.match(r.body, { productId: product.id, contentType: 'image/png', size: ONE_PIXEL_PNG.length, width: 1, height: 1 });
    t.equal(r.headers.get('location'), r.body.url);
    t.equal(r.body.url, `${path}/${r.body.id}`);
    const bytes = await fetch(`${server.baseUrl}${r.body.url}`);
    t.equal(bytes.status, 200);
    t.equal(bytes.headers.get('content-type'), 'image/png');
    t.equal(bytes.headers.get('content-length'), String(ONE_PIXEL_PNG.length));
    t.equal(bytes.headers.get('cache-control'), 'public, max-age=86400');
    t.equal(bytes.headers.get('x-content-type-options'), 'nosniff');
    t.same(Buffer.from(await bytes.arrayBuffer()), ONE_PIXEL_PNG);
    await api.get(r.body.url, { expect: 200 });
    const gif = await api.post(path, { raw: multipart('file', GIF_3X2, 'anim.gif'), token: writer, expect: 201 });
    t.match(gif.body, { contentType: 'image/gif', width: 3, height: 2 });
    const listed = await api.get(`/api/v1/products/${product.id}`, { expect: 200 });
    t.same(
      listed.body.images.map((i: any) => i.id),
      [r.body.id, gif.body.id],
      'upload order',
    );
    t.same(listed.body.images[0], r.body);
    const page = await api.get('/api/v1/products', { expect: 200 });
    t.equal(page.body.content[0].images.length, 2, 'lists carry images too');
  });

  t.test('uploading an image is the platform ADMIN’s: a signed-in user gets 403', async (t) => {
    await api.post(path, { raw: multipart('file', ONE_PIXEL_PNG, 'pixel.png', 'image/png'), token: user, expect: 403 });
  });

  t.test('upload errors: 415 for non-images and non-multipart, 400 empty or missing part, 404, 401', async (t) => {
    const fake = await api.post(path, {
      raw: multipart('file', Buffer.from('plain text, not a picture'), 'fake.png', 'image/png'),
      token: writer,
      expect: 415,
    });
    t.match(fake.body, { type: '/problems/unsupported-media-type', code: 'NOT_AN_IMAGE' });
    const pdf = Buffer.from('%PDF-1.4\n%âãÏÓ\n1 0 obj\n<<>>\nendobj\ntrailer\n<<>>\n%%EOF\n');
    await api.post(path, { raw: multipart('file', pdf, 'doc.png', 'image/png'), token: writer, expect: 415 });
    await api.post(path, { body: { file: 'x' }, token: writer, expect: 415 });
    const empty = await api.post(path, { raw: multipart('file', Buffer.alloc(0), 'empty.png'), token: writer, expect: 400 });
    t.equal(empty.body.type, '/problems/empty-file');
    const wrongPart = await api.post(path, { raw: multipart('picture', ONE_PIXEL_PNG, 'a.png'), token: writer, expect: 400 });
    t.equal(wrongPart.body.type, '/problems/empty-file');
    await api.post(`/api/v1/products/${UNKNOWN}/images`, { raw: multipart('file', ONE_PIXEL_PNG, 'a.png'), token: writer, expect: 404 });
    await api.post('/api/v1/products/not-a-uuid/images', { raw: multipart('file', ONE_PIXEL_PNG, 'a.png'), token: writer, expect: 400 });
    await api.post(path, { raw: multipart('file', ONE_PIXEL_PNG, 'a.png'), expect: 401 });
    const after = await api.get(`/api/v1/products/${product.id}`, { expect: 200 });
    t.equal(after.body.images.length, 2, 'rejected uploads stored nothing');
  });

  t.test('an image larger than 10,000,000 bytes is a 413', async (t) => {
    const big = Buffer.concat([ONE_PIXEL_PNG, Buffer.alloc(10_000_001 - ONE_PIXEL_PNG.length)]);
    const r = await api.post(path, { raw: multipart('file', big, 'big.png'), token: writer, expect: 413 });
    t.equal(r.body.type, '/problems/payload-too-large');
  });

  t.test('image download errors: 404, 400, 406, 401', async (t) => {
    const image = (await api.get(`/api/v1/products/${product.id}`, { expect: 200 })).body.images[0];
    await api.get(`${path}/${UNKNOWN}`, { expect: 404 });
    const other = await createProduct(server);
    await api.get(`/api/v1/products/${other.id}/images/${image.id}`, { expect: 404 });
    await api.get(`${path}/nope`, { expect: 400 });
    await api.get(`${image.url}?format=json`, { expect: 406 });
    await api.get(image.url, { headers: { accept: 'image/jpeg' }, expect: 406 });
    await api.get(image.url, { headers: { accept: 'image/*' }, expect: 200 });
    await api.get(image.url, { token: 'broken', expect: 401 });
  });

  t.test('deleting the product removes its images and their bytes', async (t) => {
    const admin = await server.token('root', ['ADMIN']);
    const image = (await api.get(`/api/v1/products/${product.id}`, { expect: 200 })).body.images[0];
    await api.delete(`/api/v1/products/${product.id}`, { token: admin, expect: 204 });
    await api.get(image.url, { expect: 404 });
    const blobs = await server.database.db
      .selectFrom('blobs')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    t.equal(Number(blobs.n), 0);
  });
});
