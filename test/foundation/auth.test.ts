// test-suite: once (credential parsing and the auth hook)
import { SignJWT } from 'jose';
import t from 'tap';
import { signToken } from '../../src/auth/jwt.ts';
import { sharedServer, TEST_JWT_SECRET } from '../helpers/server.ts';

const product = { name: 'Desk', price: 120.5, sku: 'DESK-1', category: 'HOME' };

t.test('bearer JWT authentication', async (t) => {
  const { api } = await sharedServer();

  t.test('missing token on a protected operation is 401', async (t) => {
    const r = await api.post('/api/v1/products', { body: product, expect: 401 });
    t.match(r.body, { status: 401, type: '/problems/unauthorized', title: 'Unauthorized' });
    t.equal(r.headers.get('www-authenticate'), 'Bearer');
  });

  t.test('expired token is 401', async (t) => {
    const expired = await signToken(TEST_JWT_SECRET, { sub: 'alice', expiresIn: -10 });
    const r = await api.post('/api/v1/products', { body: product, token: expired, expect: 401 });
    t.match(r.body.detail, /expired/);
  });

  t.test('forged token (other secret) is 401, even on a public operation', async (t) => {
    const forged = await signToken('another-secret-that-is-also-32-characters!!', { sub: 'alice', roles: ['ADMIN'] });
    await api.post('/api/v1/products', { body: product, token: forged, expect: 401 });
    await api.get('/api/v1/products/3f1d0f3e-1c2b-4a5d-9e8f-0a1b2c3d4e5f', { token: forged, expect: 401 });
  });

  t.test('alg=none and garbage tokens are 401', async (t) => {
    const header = Buffer.from(JSON.stringify({ alg: 'none' })).toString('base64url');
    const payload = Buffer.from(JSON.stringify({ sub: 'alice', roles: ['ADMIN'] })).toString('base64url');
    await api.post('/api/v1/products', { body: product, token: `${header}.${payload}.`, expect: 401 });
    await api.post('/api/v1/products', { body: product, token: 'not-a-jwt', expect: 401 });
    await api.post('/api/v1/products', { body: product, headers: { authorization: 'Basic abc' }, expect: 401 });
  });

  t.test('a token without a subject is 401', async (t) => {
    const noSub = await new SignJWT({ roles: [] })
      .setProtectedHeader({ alg: 'HS256' })
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode(TEST_JWT_SECRET));
    await api.post('/api/v1/products', { body: product, token: noSub, expect: 401 });
  });

  t.test('a valid token is accepted', async (t) => {
    const token = await signToken(TEST_JWT_SECRET, { sub: 'alice' });
    await api.post('/api/v1/customers', { body: { name: 'Alice', email: 'alice@example.com' }, token, expect: 201 });
    const admin = await signToken(TEST_JWT_SECRET, { sub: 'root', roles: ['ADMIN'] });
    await api.post('/api/v1/products', { body: product, token: admin, expect: 201 });
  });

  t.test('a GraphQL request with a bad token gets a GraphQL-shaped 401', async (t) => {
    const r = await fetch(`${api.baseUrl}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer nope' },
      body: JSON.stringify({ query: '{ users { totalElements } }' }),
    });
    t.equal(r.status, 401);
    t.match(await r.json(), { errors: [{ extensions: { errorType: 'UNAUTHORIZED' } }] });
  });
});
