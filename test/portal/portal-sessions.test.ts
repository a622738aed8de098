// test-suite: once (links and sessions are rows and a cookie, the same on both engines)
/**
 * Portal links and sessions (issue 45 item 1, openapi/portal.yaml): an ADMIN creates a link for a
 * tenant and intents; it opens one session, once, before it expires; the session's `sf_portal`
 * cookie (HttpOnly, SameSite=Strict) is accepted by exactly the admin and webhooks operations of its
 * intents, for its tenant, and ignored everywhere else; it ends when closed, after its idle time and
 * at its absolute end. One server for the file; each test has tenants of its own.
 */
import t from 'tap';
import { startServer, type TestServer } from '../helpers/server.ts';

type Intent = 'sso' | 'domains' | 'scim' | 'webhooks';

let counter = 0;
let server: TestServer;
let admin: string;

t.before(async () => {
  server = await startServer(t, { baseUrlIsListenAddress: true, env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });
  admin = await server.token('portal-operator', ['ADMIN']);
});

async function freshTenant(server: TestServer, admin: string): Promise<string> {
  const id = `portal-${++counter}`;
  await server.api.post('/api/v1/admin/tenants', { token: admin, body: { id, name: `Tenant ${counter}` }, expect: 201 });
  return id;
}

/** A session of a new user of `tenantId` holding ADMIN there (that tenant's administrator). */
async function tenantAdmin(server: TestServer, tenantId: string): Promise<string> {
  const user = await server.database.db
    .insertInto('users')
    .values({ tenant_id: tenantId, username: `admin-${tenantId}`, email: `admin@${tenantId}.example`, display_name: 'Admin' })
    .returning('id')
    .executeTakeFirstOrThrow();
  return (await server.app.services.sessions.create(user.id, { roles: ['ADMIN'] })).token;
}

async function createLink(server: TestServer, token: string, tenantId: string, intents: Intent[], extra: Record<string, unknown> = {}) {
  const created = await server.api.post(`/api/v1/admin/tenants/${tenantId}/portal-links`, {
    token,
    body: { intents, ...extra },
    expect: 201,
  });
  return created;
}

const linkTokenOf = (url: string) => new URL(url).hash.replace(/^#link=/, '');

/** Opens the link; the cookie the answer set, ready for a Cookie header. */
async function openSession(server: TestServer, url: string): Promise<{ cookie: string; setCookie: string; body: any }> {
  const opened = await server.api.post('/portal/session', { body: { link: linkTokenOf(url) }, expect: 201 });
  const setCookie = opened.headers.getSetCookie().find((line) => line.startsWith('sf_portal='))!;
  return { cookie: setCookie.split(';')[0]!, setCookie, body: opened.body };
}

t.test('one link, one session: its tenant and intents, nothing else', async (t) => {
  const acme = await freshTenant(server, admin);
  const other = await freshTenant(server, admin);

  const link = await createLink(server, admin, acme, ['sso', 'domains']);
  t.match(link.body, { tenantId: acme, intents: ['sso', 'domains'] });
  t.match(link.body.url, new RegExp(`^${server.baseUrl}/portal#link=sfportal_[A-Za-z0-9_-]{43}$`), 'the token is in the fragment');
  const ttl = new Date(link.body.expiresAt).getTime() - Date.now();
  t.ok(ttl > 14 * 60_000 && ttl <= 15 * 60_000, `15 minutes by default (${ttl} ms)`);
  t.equal(link.headers.get('cache-control'), 'no-store');

  const { cookie, setCookie, body } = await openSession(server, link.body.url);
  t.match(setCookie, /HttpOnly/);
  t.match(setCookie, /SameSite=Strict/);
  t.match(setCookie, /Path=\//);
  t.match(body, {
    tenantId: acme,
    tenantName: `Tenant ${acme.slice('portal-'.length)}`,
    intents: ['sso', 'domains'],
    idleTimeoutSeconds: 900,
  });
  const again = await server.api.post('/portal/session', { body: { link: linkTokenOf(link.body.url) }, expect: 401 });
  t.equal(again.body.code, 'PORTAL_LINK_USED', 'a link opens one session only');
  const unknown = await server.api.post('/portal/session', { body: { link: `sfportal_${'A'.repeat(43)}` }, expect: 401 });
  t.equal(unknown.body.code, 'PORTAL_LINK_INVALID');
  const malformed = await server.api.post('/portal/session', { body: { link: 'not-a-link' }, expect: 401 });
  t.equal(malformed.body.code, 'PORTAL_LINK_INVALID');

  const as = (extra: Record<string, string> = {}) => ({ headers: { cookie, ...extra } });
  const sameOrigin = { origin: server.baseUrl };
  t.match((await server.api.get('/portal/session', { ...as(), expect: 200 })).body, { tenantId: acme });

  // Within its intents, for its tenant: domains and the identity provider (none yet: 404 is an answer, not a refusal).
  await server.api.get(`/api/v1/admin/tenants/${acme}/domains`, { ...as(), expect: 200 });
  await server.api.post(`/api/v1/admin/tenants/${acme}/domains`, {
    ...as(sameOrigin),
    body: { domain: 'acme-portal.example' },
    expect: 201,
  });
  const crossSite = await server.api.post(`/api/v1/admin/tenants/${acme}/domains`, {
    ...as({ origin: 'https://evil.example' }),
    body: { domain: 'evil.example' },
    expect: 403,
  });
  t.match(crossSite.body.detail, /portal cookie/, 'an unsafe request from another origin is refused');
  await server.api.post(`/api/v1/admin/tenants/${acme}/domains`, { ...as(), body: { domain: 'no-origin.example' }, expect: 403 });
  const provider = await server.api.get(`/api/v1/admin/tenants/${acme}/identity-provider`, { ...as(), expect: 404 });
  t.equal(provider.body.code, 'IDENTITY_PROVIDER_NOT_FOUND');
  await server.api.get(`/api/v1/admin/tenants/${acme}`, { ...as(), expect: 200 });

  // Outside its intents: 403; another tenant: 404; operations without x-portal-intent ignore the cookie.
  const scim = await server.api.get(`/api/v1/admin/tenants/${acme}/scim-tokens`, { ...as(), expect: 403 });
  t.match(scim.body.detail, /portal session does not cover this operation \(it needs one of: scim\)/);
  await server.api.get('/api/webhooks', { ...as(), expect: 403 });
  const elsewhere = await server.api.get(`/api/v1/admin/tenants/${other}/domains`, { ...as(), expect: 404 });
  t.equal(elsewhere.body.code, 'TENANT_NOT_FOUND');
  await server.api.get('/api/v1/admin/tenants', { ...as(), expect: 401 });
  await server.api.post(`/api/v1/admin/tenants/${acme}/portal-links`, { ...as(sameOrigin), body: { intents: ['scim'] }, expect: 401 });
  await server.api.get('/auth/session', { ...as(), expect: 401 });
  const graphql = await fetch(`${server.baseUrl}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie, ...sameOrigin },
    body: JSON.stringify({ query: 'mutation { deleteUser(id: "x") }' }),
  });
  t.match(await graphql.text(), /UNAUTHORIZED/, 'GraphQL does not take the portal cookie as a caller');

  // Closed: from the next request on, nothing accepts it, and the answer clears it.
  await server.api.delete('/portal/session', { ...as(), expect: 403 }); // no Origin
  const closed = await server.api.delete('/portal/session', { ...as(sameOrigin), expect: 204 });
  t.match(closed.headers.getSetCookie().join('\n'), /sf_portal=; Max-Age=0/);
  await server.api.get('/portal/session', { ...as(), expect: 401 });
  await server.api.get(`/api/v1/admin/tenants/${acme}/domains`, { ...as(), expect: 401 });
});

t.test('a link expires; a session ends after its idle time and at its absolute end', async (t) => {
  const tenant = await freshTenant(server, admin);
  const db = server.database.db;

  const stale = await createLink(server, admin, tenant, ['scim'], { expiresInMinutes: 1 });
  t.ok(new Date(stale.body.expiresAt).getTime() - Date.now() <= 60_000);
  await db
    .updateTable('portal_links')
    .set({ expires_at: new Date(Date.now() - 1000) })
    .where('tenant_id', '=', tenant)
    .execute();
  const expired = await server.api.post('/portal/session', { body: { link: linkTokenOf(stale.body.url) }, expect: 401 });
  t.equal(expired.body.code, 'PORTAL_LINK_EXPIRED');

  const idle = await openSession(server, (await createLink(server, admin, tenant, ['scim'])).body.url);
  await server.api.get(`/api/v1/admin/tenants/${tenant}/scim-tokens`, { headers: { cookie: idle.cookie }, expect: 200 });
  const idleFor = async (minutes: number) =>
    db
      .updateTable('portal_sessions')
      .set({ last_seen_at: new Date(Date.now() - minutes * 60_000) })
      .where('ended_at', 'is', null)
      .where('tenant_id', '=', tenant)
      .execute();
  await idleFor(14);
  await server.api.get('/portal/session', { headers: { cookie: idle.cookie }, expect: 200 }); // and used again: idle time restarts
  await idleFor(16);
  await server.api.get('/portal/session', { headers: { cookie: idle.cookie }, expect: 401 });
  await server.api.get(`/api/v1/admin/tenants/${tenant}/scim-tokens`, { headers: { cookie: idle.cookie }, expect: 401 });

  const old = await openSession(server, (await createLink(server, admin, tenant, ['scim'])).body.url);
  const sessionEnd = new Date(old.body.expiresAt).getTime() - Date.now();
  t.ok(sessionEnd > 3.9 * 3600_000 && sessionEnd <= 4 * 3600_000, 'four hours at most');
  await db
    .updateTable('portal_sessions')
    .set({ expires_at: new Date(Date.now() - 1000) })
    .where('tenant_id', '=', tenant)
    .execute();
  await server.api.get('/portal/session', { headers: { cookie: old.cookie }, expect: 401 });
});

t.test("the webhooks intent manages the tenant's own endpoints only", async (t) => {
  const tenant = await freshTenant(server, admin);
  await server.api.post('/api/webhooks', { token: admin, body: { url: 'https://127.0.0.1:9/platform', events: ['*'] }, expect: 201 });
  const { cookie } = await openSession(server, (await createLink(server, admin, tenant, ['webhooks'])).body.url);
  const headers = { cookie, origin: server.baseUrl };
  const created = await server.api.post('/api/webhooks', {
    headers,
    body: { url: 'https://127.0.0.1:9/tenant', events: ['user.created'] },
    expect: 201,
  });
  t.equal(created.body.tenant_id, tenant, "the portal's endpoint is its tenant's");
  const listed = await server.api.get('/api/webhooks', { headers, expect: 200 });
  t.same(
    listed.body.data.map((e: { url: string }) => e.url),
    ['https://127.0.0.1:9/tenant'],
    "the platform's endpoint is not listed",
  );
  const platformOnly = await server.api.post('/api/webhooks', {
    headers,
    body: { url: 'https://127.0.0.1:9/x', events: ['order.created'] },
    expect: 400,
  });
  t.match(platformOnly.body.detail + JSON.stringify(platformOnly.body.errors ?? []), /tenant/, 'a platform event type is refused');
  // No intent for single sign-on here.
  await server.api.get(`/api/v1/admin/tenants/${tenant}/identity-provider`, { headers, expect: 403 });
});

t.test('who may create a link, and for what', async (t) => {
  const acme = await freshTenant(server, admin);
  const other = await freshTenant(server, admin);
  const acmeAdmin = await tenantAdmin(server, acme);

  await createLink(server, acmeAdmin, acme, ['webhooks']);
  const notTheirs = await server.api.post(`/api/v1/admin/tenants/${other}/portal-links`, {
    token: acmeAdmin,
    body: { intents: ['sso'] },
    expect: 404,
  });
  t.equal(notTheirs.body.code, 'TENANT_NOT_FOUND', "a tenant's ADMIN makes links for its own tenant only");
  await server.api.post(`/api/v1/admin/tenants/${acme}/portal-links`, { body: { intents: ['sso'] }, expect: 401 });
  await server.api.post('/api/v1/admin/tenants/nowhere/portal-links', { token: admin, body: { intents: ['sso'] }, expect: 404 });
  const platform = await server.api.post('/api/v1/admin/tenants/default/portal-links', {
    token: admin,
    body: { intents: ['sso'] },
    expect: 400,
  });
  t.match(JSON.stringify(platform.body.errors), /tenantId.*platform's own tenant/, "the platform's own tenant has no portal");
  await server.api.post(`/api/v1/admin/tenants/${acme}/portal-links`, { token: admin, body: { intents: [] }, expect: 400 });
  await server.api.post(`/api/v1/admin/tenants/${acme}/portal-links`, { token: admin, body: { intents: ['billing'] }, expect: 400 });
  await server.api.post(`/api/v1/admin/tenants/${acme}/portal-links`, {
    token: admin,
    body: { intents: ['sso'], expiresInMinutes: 61 },
    expect: 400,
  });
  const stored = await server.database.db
    .selectFrom('portal_links')
    .select(['token_sha256', 'created_by'])
    .where('tenant_id', '=', acme)
    .execute();
  t.ok(
    stored.every((row) => /^[0-9a-f]{64}$/.test(row.token_sha256)),
    'only digests are stored',
  );
});
