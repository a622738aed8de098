// test-suite: once (cookie handling)
/**
 * A session cookie that holds no valid session (junk, or a session logged out or revoked) never
 * locks anybody out: every route that allows anonymous callers treats the request as anonymous,
 * signing in again included, and the answer clears the cookie; routes that need a caller answer 401
 * as for anyone anonymous. A valid cookie keeps its cross-site protection.
 */
import t from 'tap';
import { sharedServer, type TestServer } from '../helpers/server.ts';
import { sessionCookie } from './sso-fixtures.ts';

const PASSWORD = 'correct horse battery staple';

async function registered(server: TestServer, name: string): Promise<string> {
  const r = await server.api.post('/auth/local/register', {
    body: { email: `${name}@example.com`, password: PASSWORD, username: name, displayName: name },
    expect: 201,
  });
  return r.body.token as string;
}

/** A request with only the cookie, from a page of this server. */
function withCookie(server: TestServer, path: string, cookie: string, init: RequestInit = {}): Promise<Response> {
  return fetch(`${server.baseUrl}${path}`, {
    ...init,
    headers: { cookie: `sf_session=${cookie}`, origin: new URL(server.baseUrl).origin, ...(init.headers as Record<string, string>) },
    redirect: 'manual',
  });
}

const clears = (r: Response) => r.headers.getSetCookie().some((c) => /^sf_session=;/.test(c) && /Max-Age=0/.test(c));

t.test('a logged-out session cookie does not stop the next sign-in', async (t) => {
  const server = await sharedServer({ baseUrlIsListenAddress: true });
  const token = await registered(server, 'lou');
  const loggedOut = await withCookie(server, '/auth/logout', token, { method: 'POST' });
  t.equal(loggedOut.status, 200);
  const again = await withCookie(server, '/auth/login', token, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'lou@example.com', password: PASSWORD }),
  });
  t.equal(again.status, 200, 'signing in again works with the stale cookie still in the browser');
  t.ok(sessionCookie(again), 'and sets the new session');
  const logoutAgain = await withCookie(server, '/auth/logout', token, { method: 'POST' });
  t.equal(logoutAgain.status, 401, 'logging out needs a session');
  t.ok(clears(logoutAgain), 'and the answer clears the stale cookie');
});

t.test('a junk cookie is no cookie on anonymous routes, REST and GraphQL, and is cleared', async (t) => {
  const server = await sharedServer({ baseUrlIsListenAddress: true });
  for (const junk of ['garbage', 'sfsess_not-a-real-session-token-at-all-xxxxxxxxxxxxxxxxxx']) {
    const list = await withCookie(server, '/api/v1/products', junk);
    t.equal(list.status, 200, `${junk}: a public read answers`);
    t.ok(clears(list), `${junk}: and clears the cookie`);
    const graphql = await withCookie(server, '/graphql', junk, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ users { totalElements } }' }),
    });
    t.equal(graphql.status, 200);
    t.same(await graphql.json(), { data: { users: { totalElements: 0 } } });
    const discover = await withCookie(server, '/auth/discover?email=a%40example.com', junk);
    t.equal(discover.status, 200);
    const write = await withCookie(server, '/api/v1/products', junk, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Desk', price: 1, sku: 'JUNK-1', category: 'HOME' }),
    });
    t.equal(write.status, 401, 'an operation that needs a caller: 401, as for anyone anonymous');
    t.equal(write.headers.get('www-authenticate'), 'Bearer');
  }
});

t.test('a valid cookie still signs in, and still refuses cross-site writes', async (t) => {
  const server = await sharedServer({ baseUrlIsListenAddress: true });
  const token = await registered(server, 'val');
  const session = await withCookie(server, '/auth/session', token);
  t.equal(session.status, 200);
  t.notOk(clears(session));
  const crossSite = await fetch(`${server.baseUrl}/auth/logout`, {
    method: 'POST',
    headers: { cookie: `sf_session=${token}`, origin: 'https://evil.example' },
  });
  t.equal(crossSite.status, 403);
});
