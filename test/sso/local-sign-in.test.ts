// test-suite: once (password sign-in and cookie rules)
/**
 * Password sign-in and the session it yields: registration, the cookie's attributes, the token as a
 * bearer credential everywhere, the cross-site check on cookie-authenticated writes (REST and
 * GraphQL), logout, the attempt budgets, a SCIM-deactivated user refused at sign-in, and an account
 * registered before a tenant verified its domain moving into that tenant.
 */
import t from 'tap';
import { startDnsServer } from '../helpers/dns-server.ts';
import { TestSamlIdp } from '../helpers/saml-idp.ts';
import { scimClient } from '../helpers/scim.ts';
import { sharedServer, startServer } from '../helpers/server.ts';
import { samlTenant } from './saml-fixtures.ts';
import {
  adminToken,
  createTenant,
  mailedCode,
  RecordingMail,
  registerProven,
  sessionCookie,
  sessionOf,
  verifiedDomain,
} from './sso-fixtures.ts';

const PASSWORD = 'correct horse battery staple';
const CREATE_POST = 'mutation { createPost(input: { title: "Hello", content: "From a session" }) { id author { id } } }';

t.test('registration signs in: cookie, bearer token, session, and a scrypt hash at rest', async (t) => {
  const server = await sharedServer();
  const registered = await server.api.post('/auth/local/register', {
    body: { email: 'Ada@Example.com', password: PASSWORD, username: 'ada', displayName: 'Ada Lovelace' },
    expect: 201,
  });
  const token = registered.body.token as string;
  t.match(token, /^sfsess_/);
  t.equal(registered.body.user.email, 'ada@example.com', 'the address is kept in lower case');
  t.equal(registered.body.user.tenantId, 'default', 'an unmapped domain signs in to the default tenant');
  const setCookie = registered.headers.getSetCookie().find((c) => c.startsWith('sf_session='))!;
  t.match(setCookie, /HttpOnly/);
  t.match(setCookie, /SameSite=Lax/);
  t.match(setCookie, /Path=\//);
  t.notMatch(setCookie, /Secure/, 'not Secure while BASE_URL is http');
  t.equal(sessionCookie(registered), token, 'the cookie holds the same session token');
  t.equal(registered.headers.get('cache-control'), 'no-store');

  const stored = await server.database.db
    .selectFrom('users')
    .select(['password_hash', 'source'])
    .where('email', '=', 'ada@example.com')
    .executeTakeFirstOrThrow();
  t.match(stored.password_hash, /^scrypt\$15\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/, 'scrypt, N=2^15, r=8, p=1, salted');
  t.notMatch(stored.password_hash, /correct horse/);
  t.equal(stored.source, 'local');

  for (const as of ['bearer', 'cookie'] as const) {
    const session = await sessionOf(t, server, token, as);
    t.equal(session.status, 200, `the session is read with the ${as}`);
    t.equal(session.body.authMethod, 'local');
    t.equal(session.body.user.username, 'ada');
  }
  const jwtSession = await server.api.get('/auth/session', { token: await server.token(registered.body.user.id) });
  t.equal(jwtSession.status, 401, 'a JWT is not a session');

  const duplicate = await server.api.post('/auth/local/register', {
    body: { email: 'ada@example.com', password: PASSWORD, username: 'ada2', displayName: 'Again' },
  });
  t.equal(duplicate.status, 409);
  const weak = await server.api.post('/auth/local/register', {
    body: { email: 'b@example.com', password: 'short', username: 'bee', displayName: 'B' },
  });
  t.equal(weak.status, 400);
  t.match(weak.body.errors, [{ field: '/password' }]);
});

t.test(
  'password sign-in: one answer for a wrong password and an unknown address; the session is the principal of the content API',
  async (t) => {
    const server = await sharedServer();
    await server.api.post('/auth/local/register', {
      body: { email: 'grace@example.com', password: PASSWORD, username: 'grace', displayName: 'Grace' },
      expect: 201,
    });
    const wrong = await server.api.post('/auth/login', { body: { email: 'grace@example.com', password: 'not the password at all' } });
    const unknown = await server.api.post('/auth/login', { body: { email: 'nobody@example.com', password: PASSWORD } });
    t.equal(wrong.status, 401);
    t.equal(unknown.status, 401);
    t.equal(wrong.body.detail, unknown.body.detail, 'no hint whether the address has an account');
    t.equal(sessionCookie(wrong), null, 'no cookie on failure');

    const login = await server.api.post('/auth/login', { body: { email: 'GRACE@example.com', password: PASSWORD }, expect: 200 });
    const token = login.body.token as string;
    const created = await fetch(`${server.baseUrl}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ query: CREATE_POST }),
    });
    const body = (await created.json()) as { data: { createPost: { author: { id: string } } } };
    t.equal(body.data.createPost.author.id, login.body.user.id, 'createPost as the signed-in user (bearer session token)');
  },
);

t.test('cookie-authenticated writes need an Origin of this server; bearer writes do not', async (t) => {
  const server = await sharedServer({ baseUrlIsListenAddress: true });
  const registered = await server.api.post('/auth/local/register', {
    body: { email: 'lin@example.com', password: PASSWORD, username: 'lin', displayName: 'Lin' },
    expect: 201,
  });
  const token = registered.body.token as string;
  const graphql = (headers: Record<string, string>) =>
    fetch(`${server.baseUrl}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie: `sf_session=${token}`, ...headers },
      body: JSON.stringify({ query: CREATE_POST }),
    });
  t.equal((await graphql({})).status, 403, 'a GraphQL mutation with the cookie and no Origin is refused');
  t.equal((await graphql({ origin: 'https://evil.example' })).status, 403, 'a foreign Origin is refused');
  t.equal((await graphql({ referer: 'https://evil.example/page' })).status, 403, 'a foreign Referer is refused');
  const same = await graphql({ origin: server.baseUrl });
  t.equal(same.status, 200, 'the server’s own origin may');
  t.equal((await graphql({ referer: `${server.baseUrl}/app` })).status, 200, 'a Referer on this server may, without Origin');
  const query = await fetch(`${server.baseUrl}/graphql?query=${encodeURIComponent('{ me { id } }')}`, {
    headers: { cookie: `sf_session=${token}` },
  });
  t.equal(query.status, 200, 'a GET with the cookie needs no Origin');
  const bearer = await fetch(`${server.baseUrl}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query: CREATE_POST }),
  });
  t.equal(bearer.status, 200, 'a bearer request needs no Origin');

  const restWrite = await server.api.post('/auth/logout', { headers: { cookie: `sf_session=${token}` } });
  t.equal(restWrite.status, 403, 'REST logout with the cookie and no Origin is refused');
  t.equal((await sessionOf(t, server, token)).status, 200, 'and the session is untouched');
  const out = await server.api.post('/auth/logout', { headers: { cookie: `sf_session=${token}`, origin: server.baseUrl }, expect: 200 });
  t.equal(out.body.providerLogoutUrl, null, 'a local session has no provider to sign out of');
  t.match(
    out.headers.getSetCookie().find((c) => c.startsWith('sf_session=')),
    /Max-Age=0/,
    'the cookie is cleared',
  );
  t.equal((await sessionOf(t, server, token)).status, 401, 'the session is over');
  // The logged-out cookie is no cookie: the mutation runs for an anonymous caller, which it refuses.
  const stale = await graphql({ origin: server.baseUrl });
  t.match(await stale.json(), { data: null, errors: [{ extensions: { errorType: 'UNAUTHORIZED' } }] }, 'and refused by GraphQL');
  t.match(
    stale.headers.getSetCookie().find((c) => c.startsWith('sf_session=')),
    /Max-Age=0/,
    'which clears the stale cookie',
  );
});

t.test('sign-in and registration budgets: 429 with Retry-After, per account and per address', async (t) => {
  const server = await sharedServer();
  await server.api.post('/auth/local/register', {
    body: { email: 'rate@example.com', password: PASSWORD, username: 'rate', displayName: 'R' },
    expect: 201,
  });
  const statuses: number[] = [];
  for (let i = 0; i < 11; i++) {
    statuses.push((await server.api.post('/auth/login', { body: { email: 'rate@example.com', password: `wrong password ${i}!` } })).status);
  }
  t.same(statuses, [...Array(10).fill(401), 429], '10 attempts a minute per account');
  const limited = await server.api.post('/auth/login', { body: { email: 'rate@example.com', password: PASSWORD } });
  t.equal(limited.status, 429, 'even the right password waits out the window');
  t.equal(limited.body.code, 'RATE_LIMITED');
  const retryAfter = Number(limited.headers.get('retry-after'));
  t.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter} s`);
  const other = await server.api.post('/auth/login', { body: { email: 'other@example.com', password: PASSWORD } });
  t.equal(other.status, 401, 'another account has its own budget');

  const registrations: number[] = [];
  for (let i = 0; i < 11; i++) {
    const r = await server.api.post('/auth/local/register', {
      body: { email: `r${i}@example.com`, password: PASSWORD, username: `r${i}user`, displayName: 'R' },
    });
    registrations.push(r.status);
  }
  t.same(registrations, [...Array(9).fill(201), 429, 429], '10 registrations a minute per address (one spent above)');
});

t.test('a SCIM-deactivated user cannot sign in, and its session stops at the next request', async (t) => {
  const dns = await startDnsServer(t);
  const mail = new RecordingMail();
  const server = await startServer(t, { env: { DNS_RESOLVER: dns.address }, mail });
  await createTenant(server, 'acme');
  await verifiedDomain(server, dns, 'acme', 'acme.example');
  const token = await adminToken(server);
  const { token: scimToken } = (await server.api.post('/api/v1/admin/tenants/acme/scim-tokens', { token, expect: 201 })).body;
  const scim = scimClient(server, 'acme', scimToken);
  const registered = await registerProven(server, mail, {
    email: 'pat@acme.example',
    password: PASSWORD,
    username: 'pat',
    displayName: 'Pat',
  });
  t.equal(registered.user.tenantId, 'acme', 'the verified domain routes the account to its tenant');
  const session = registered.token as string;
  t.equal((await sessionOf(t, server, session)).body.tenantId, 'acme', 'and the session names it');
  await scim.patch(`/Users/${registered.user.id}`, [{ op: 'replace', path: 'active', value: false }], { expect: 200 });
  t.equal((await sessionOf(t, server, session)).status, 401, 'the session is refused on the next request');
  const login = await server.api.post('/auth/login', { body: { email: 'pat@acme.example', password: PASSWORD } });
  t.equal(login.status, 401);
  t.equal(login.body.detail, 'This account is deactivated');
  t.equal(sessionCookie(login), null);
});

t.test('an account registered before its domain was verified moves into the tenant that verifies it', async (t) => {
  const dns = await startDnsServer(t);
  const mail = new RecordingMail();
  const server = await startServer(t, { env: { DNS_RESOLVER: dns.address }, mail, baseUrlIsListenAddress: true });
  const idp = await TestSamlIdp.create('acme-idp');
  const acme = await samlTenant(t, idp, 'acme', server);
  const token = await adminToken(server);
  const register = async (local: string) => {
    const body = { email: `${local}@acme.test`, password: PASSWORD, username: local, displayName: local };
    const registered = await server.api.post('/auth/local/register', { body, expect: 201 });
    t.equal(registered.body.user.tenantId, 'default', `${local}: the unmapped domain registers in the default tenant`);
    return { id: registered.body.user.id as string, email: body.email, session: registered.body.token as string };
  };
  const someone = await register('someone');
  const unproven = await register('unproven');
  const squatted = await register('squatted');
  const used = await register('used');
  // The platform tenant mails no code, so its only proven accounts are those from before proof
  // existed (migration 0015 counts them proven): what `someone` stands for.
  await server.database.db.updateTable('users').set({ email_verified_at: new Date() }).where('id', '=', someone.id).execute();
  const login = (email: string) => server.api.post('/auth/login', { body: { email, password: PASSWORD } });
  const stored = (id: string) =>
    server.database.db.selectFrom('users').select(['tenant_id', 'password_hash', 'source']).where('id', '=', id).executeTakeFirstOrThrow();
  const ssoSignIn = async (email: string) => {
    const started = await acme.startLogin();
    const signedIn = await acme.post(idp.response(acme.options(email, { inResponseTo: started.id })), started.relayState);
    t.equal(signedIn.status, 302, `single sign-on of ${email}`);
    return (await sessionOf(t, server, sessionCookie(signedIn)!)).body;
  };

  await verifiedDomain(server, dns, 'acme', 'acme.test');

  const signedIn = await login(someone.email);
  t.equal(signedIn.status, 200, `the password still signs in: ${JSON.stringify(signedIn.body)}`);
  t.equal(signedIn.body.user.id, someone.id, 'as the same user');
  t.equal(signedIn.body.user.tenantId, 'acme', 'now a user of the tenant the domain routes to');
  t.equal((await sessionOf(t, server, signedIn.body.token)).body.tenantId, 'acme', 'and so is the session');
  t.equal((await sessionOf(t, server, someone.session)).status, 401, 'the session of the default tenant has ended');

  const refused = await login(unproven.email);
  t.equal(refused.status, 403, 'an address never proven is proven first');
  t.equal(refused.body.code, 'EMAIL_NOT_VERIFIED');
  const proven = await server.api.post('/auth/local/verify-email', {
    body: { email: unproven.email, code: mailedCode(mail, unproven.email) },
    expect: 200,
  });
  t.same([proven.body.user.id, proven.body.user.tenantId], [unproven.id, 'acme'], 'the code mailed at that sign-in proves it');
  t.equal((await login(unproven.email)).status, 200, 'and the password signs in from then on');

  // A stranger registering a moved, still unproven address: the account (used in the default
  // tenant) is not replaced, and what it holds stays.
  const again = await server.api.post('/auth/local/register', {
    body: { email: used.email, password: `${PASSWORD}-other`, username: 'stranger', displayName: 'Stranger' },
  });
  t.equal(again.status, 409, `registering a used account's address again is refused: ${JSON.stringify(again.body)}`);
  t.equal(again.body.code, 'DUPLICATE_EMAIL');
  t.match(await stored(used.id), { tenant_id: 'acme', source: 'local' }, 'and the used account is still there');

  await server.api.patch('/api/v1/admin/tenants/acme/domains/acme.test', { token, body: { enforceSso: true }, expect: 200 });
  const enforced = await login(someone.email);
  t.equal(enforced.status, 403, 'enforced single sign-on refuses the password');
  t.equal(enforced.body.code, 'SSO_REQUIRED');
  t.match(enforced.body.detail, /acme\.test signs in with single sign-on only/);

  const viaProvider = await ssoSignIn(someone.email);
  t.equal(viaProvider.user.id, someone.id, 'single sign-on finds the moved account');
  t.match(await stored(someone.id), { source: 'local', password_hash: /^scrypt\$/ }, 'and leaves a proven account its password');
  const taken = await ssoSignIn(squatted.email);
  t.equal(taken.user.id, squatted.id, 'an account whose address was never proven');
  t.match(await stored(squatted.id), { source: 'saml', password_hash: null }, 'is taken over without its password');

  await server.api.patch('/api/v1/admin/tenants/acme/domains/acme.test', { token, body: { enforceSso: false }, expect: 200 });
  t.equal((await login(someone.email)).status, 200, 'enforcement lifted, the password signs in again');
  t.equal((await login(squatted.email)).status, 401, 'but not the password of the account taken over');
});
