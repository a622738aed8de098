// test-suite: once (the SAML flow against the identity provider)
/**
 * SAML 2.0 single sign-on end to end against a test identity provider: set-up from metadata (both
 * signing certificates kept), SP-initiated and IdP-initiated sign-in with the current and with the
 * backup certificate, JIT provisioning and group-to-role mapping, the service provider metadata, the
 * administrator's test sign-in, single logout, and a SCIM-deactivated user refused.
 */
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { postToAcs, TestSamlIdp } from '../helpers/saml-idp.ts';
import { GROUP_SCHEMA, scimClient } from '../helpers/scim.ts';
import { sharedServer } from '../helpers/server.ts';
import { samlTenant } from './saml-fixtures.ts';
import { adminToken, createTenant, sessionCookie, sessionCount, sessionOf } from './sso-fixtures.ts';

t.test('set-up from metadata XML keeps both certificates; the SP metadata names the tenant’s URLs', async (t) => {
  const idp = await TestSamlIdp.create('meta-idp');
  const acme = await samlTenant(t, idp);
  const token = await adminToken(acme.server);
  const provider = await acme.server.api.get('/api/v1/admin/tenants/acme/identity-provider', { token, expect: 200 });
  t.equal(provider.body.saml.entityId, idp.entityId);
  t.equal(provider.body.saml.ssoUrl, idp.ssoUrl);
  t.equal(provider.body.saml.sloUrl, idp.sloUrl);
  t.equal(provider.body.saml.certificates.length, 2, 'current and backup certificate');
  t.match(provider.body.saml.certificateBackup, /BEGIN CERTIFICATE/);
  t.same(provider.body.serviceProvider, { entityId: acme.spEntityId, acsUrl: acme.acsUrl });

  const metadata = await fetch(`${acme.server.baseUrl}/saml/metadata/acme`);
  t.equal(metadata.status, 200);
  t.match(metadata.headers.get('content-type'), /^application\/samlmetadata\+xml/);
  const xml = await metadata.text();
  t.match(xml, `entityID="${acme.spEntityId}"`);
  t.match(xml, `Location="${acme.acsUrl}"`);
  t.equal((await fetch(`${acme.server.baseUrl}/saml/metadata/nobody`)).status, 404);

  const noSha1 = await acme.server.api.put('/api/v1/admin/tenants/acme/identity-provider', {
    token,
    body: { protocol: 'saml', saml: idp.settings({ signedAssertions: false }) },
  });
  t.equal(noSha1.status, 400, 'a configuration that waives the assertion signature is refused');
  const badCert = await acme.server.api.put('/api/v1/admin/tenants/acme/identity-provider', {
    token,
    body: { protocol: 'saml', saml: idp.settings({ certificate: 'not a certificate' }) },
  });
  t.equal(badCert.status, 400);
  t.match(badCert.body.errors, [{ field: '/saml/certificate' }]);
  const doctype = await acme.server.api.put('/api/v1/admin/tenants/acme/identity-provider', {
    token,
    body: {
      protocol: 'saml',
      metadataXml: `<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]>${idp.metadataXml().replace('<?xml version="1.0"?>', '')}`,
    },
  });
  t.equal(doctype.status, 400, 'metadata with a DOCTYPE is refused');

  // The interface document's configuration object, tenantId and every field included.
  const documented = {
    tenantId: 'acme',
    protocol: 'saml',
    saml: { ...idp.settings(), nameIdFormat: 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress', signedResponses: false },
    attributeMapping: { email: 'email', firstName: 'firstName', lastName: 'lastName', groups: 'groups', department: 'department' },
    roleMapping: { admins: 'ADMIN' },
  };
  const accepted = await acme.server.api.put('/api/v1/admin/tenants/acme/identity-provider', { token, body: documented, expect: 200 });
  t.equal(accepted.body.tenantId, 'acme', 'the documented shape, tenantId included, is accepted');
  const elsewhere = await acme.server.api.put('/api/v1/admin/tenants/acme/identity-provider', {
    token,
    body: { ...documented, tenantId: 'globex' },
    expect: 400,
  });
  t.match(elsewhere.body.errors, [{ field: '/tenantId', message: /must be the tenant of the path \(acme\)/ }]);
});

t.test('SP-initiated sign-in with the current and with the backup certificate; JIT provisioning and roles', async (t) => {
  const idp = await TestSamlIdp.create('sp-idp');
  const acme = await samlTenant(t, idp);
  const login = await acme.startLogin('/dashboard?tab=1');
  t.ok(login.location.startsWith(`${idp.ssoUrl}?`), 'to the provider’s sign-on URL');
  const request = TestSamlIdp.parseRedirect(login.location);
  t.equal(request.acsUrl, acme.acsUrl, 'the AuthnRequest names the tenant’s ACS URL');
  t.equal(request.issuer, acme.spEntityId);

  const first = await acme.post(idp.response(acme.options('sam@acme.example', { inResponseTo: login.id })), login.relayState);
  t.equal(first.status, 302, await first.clone().text());
  t.equal(first.headers.get('location'), '/dashboard?tab=1', 'back to returnTo');
  const token = sessionCookie(first)!;
  t.ok(token, 'the session cookie is set');
  const session = await sessionOf(t, acme.server, token, 'cookie');
  t.equal(session.body.authMethod, 'saml');
  t.equal(session.body.tenantId, 'acme');
  t.same(session.body.roles, ['ADMIN'], 'group admins maps to ADMIN; unmapped groups give nothing');
  const user = await acme.server.database.db
    .selectFrom('users')
    .selectAll()
    .where('email', '=', 'sam@acme.example')
    .executeTakeFirstOrThrow();
  t.equal(user.source, 'saml', 'created just in time');
  t.equal(user.tenant_id, 'acme');
  t.equal(user.given_name, 'Sam');
  t.equal(user.department, 'Research', 'the department comes through the attribute mapping');

  const backup = await acme.startLogin();
  const second = await acme.post(
    idp.response(acme.options('sam@acme.example', { inResponseTo: backup.id, keys: idp.backupKeys!, attributes: { groups: ['editors'] } })),
    backup.relayState,
  );
  t.equal(second.status, 302, 'a response signed with the backup certificate is accepted (rotation)');
  const again = await sessionOf(t, acme.server, sessionCookie(second)!);
  t.same(again.body.roles, ['EDITOR'], 'roles follow the provider’s groups at each sign-in');
  t.equal(again.body.user.id, user.id, 'the same user record, not a second one');
  const count = await acme.server.database.db
    .selectFrom('users')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('email', '=', 'sam@acme.example')
    .executeTakeFirstOrThrow();
  t.equal(Number(count.n), 1);

  const reused = await acme.post(idp.response(acme.options('sam@acme.example', { inResponseTo: login.id })), login.relayState);
  t.equal(reused.status, 401, 'a sign-in request is answered once');
});

t.test('IdP-initiated sign-in: relay state is a path on this server, the assertion is fresh', async (t) => {
  const idp = await TestSamlIdp.create('idp-init');
  const acme = await samlTenant(t, idp);
  const r = await acme.post(idp.response(acme.options('ida@acme.example')), '/welcome');
  t.equal(r.status, 302);
  t.equal(r.headers.get('location'), '/welcome');
  t.equal((await sessionOf(t, acme.server, sessionCookie(r)!)).body.user.email, 'ida@acme.example');
  const withBackup = await acme.post(idp.response(acme.options('ida@acme.example', { keys: idp.backupKeys! })));
  t.equal(withBackup.status, 302, 'with the backup certificate too');
  t.equal(withBackup.headers.get('location'), '/', 'no relay state: to /');
  const before = await sessionCount(acme.server);
  const open = await acme.post(idp.response(acme.options('ida@acme.example')), 'https://evil.example/phish');
  t.equal(open.status, 401, 'a relay state elsewhere is refused (no open redirect)');
  // Paths of this server as written that the URL parser turns into a protocol-relative `//evil.example`.
  for (const relayState of ['/.//evil.example', '/%2e%2e//evil.example', '/./\\evil.example', `${acme.server.baseUrl}//evil.example`]) {
    const normalised = await acme.post(idp.response(acme.options('ida@acme.example')), relayState);
    t.equal(normalised.status, 401, `relay state ${relayState} is refused`);
  }
  t.equal(await sessionCount(acme.server), before);
});

t.test('a response is accepted only from the browser that started the sign-in (login CSRF)', async (t) => {
  const idp = await TestSamlIdp.create('csrf-idp');
  const acme = await samlTenant(t, idp);
  const before = await sessionCount(acme.server);
  // A victim's browser: one without a sign-in cookie, and one with a sign-in of its own in progress.
  const victim = await acme.startLogin();
  for (const cookie of [null, victim.cookie]) {
    // The attacker's sign-in, answered by the provider for the attacker's account, posted by the victim.
    const attackers = await acme.startLogin();
    const response = idp.response(acme.options('mallory@acme.example', { inResponseTo: attackers.id }));
    const r = await acme.post(response, attackers.relayState, undefined, cookie);
    t.equal(r.status, 401);
    t.match(((await r.json()) as { detail: string }).detail, /not started in this browser/);
  }
  t.equal(await sessionCount(acme.server), before, 'no session');
});

t.test('provider-initiated sign-in only for a tenant that enables it', async (t) => {
  const idp = await TestSamlIdp.create('strict-idp');
  const acme = await samlTenant(t, idp, 'acme', undefined, { allowIdpInitiated: false });
  const provider = await acme.server.api.get('/api/v1/admin/tenants/acme/identity-provider', {
    token: await adminToken(acme.server),
    expect: 200,
  });
  t.equal(provider.body.saml.allowIdpInitiated, false, 'off unless enabled');
  const unsolicited = await acme.post(idp.response(acme.options('ida@acme.example')), '/welcome');
  t.equal(unsolicited.status, 401);
  t.match(((await unsolicited.json()) as { detail: string }).detail, /provider-initiated sign-in is not enabled/);
  const login = await acme.startLogin();
  const solicited = await acme.post(idp.response(acme.options('ida@acme.example', { inResponseTo: login.id })), login.relayState);
  t.equal(solicited.status, 302, 'a sign-in started here still works');
});

t.test('test sign-in reports what would happen and signs nobody in; single logout URL', async (t) => {
  const idp = await TestSamlIdp.create('test-idp');
  const acme = await samlTenant(t, idp);
  const token = await adminToken(acme.server);
  const started = await acme.server.api.post('/api/v1/admin/tenants/acme/identity-provider/test-sign-in', { token, expect: 201 });
  const request = TestSamlIdp.parseRedirect(started.body.url);
  const before = await sessionCount(acme.server);
  const r = await fetch(acme.acsUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      SAMLResponse: idp.response(acme.options('tess@acme.example', { inResponseTo: request.id })),
      RelayState: request.relayState!,
    }),
    redirect: 'manual',
  });
  t.equal(r.status, 200);
  const report = (await r.json()) as Record<string, any>;
  t.equal(report.test, true);
  t.equal(report.outcome, 'create-user');
  t.equal(report.mapped.email, 'tess@acme.example');
  t.same(report.mapped.groups, ['admins', 'staff']);
  t.same(report.roles, ['ADMIN']);
  t.equal(sessionCookie(r), null);
  t.equal(await sessionCount(acme.server), before, 'no session');
  t.equal(
    await acme.server.database.db.selectFrom('users').select('id').where('email', '=', 'tess@acme.example').executeTakeFirst(),
    undefined,
    'no user',
  );
  const lastTest = `/api/v1/admin/tenants/acme/identity-provider/test-sign-in`;
  const kept = await acme.server.api.get(lastTest, { token, expect: 200 });
  t.match(kept.body, { protocol: 'saml', subject: 'tess@acme.example', outcome: 'create-user', roles: ['ADMIN'], refusal: null }, 'kept');
  t.same(kept.body.mapped.groups, ['admins', 'staff']);
  t.ok(Date.now() - Date.parse(kept.body.at) < 60_000, 'with when');

  // A refused answer to a test sign-in is kept with the check that refused it; a refused real
  // sign-in is not a test and changes nothing.
  const second = TestSamlIdp.parseRedirect((await acme.server.api.post(lastTest, { token, expect: 201 })).body.url);
  const stranger = await TestSamlIdp.create('stranger-idp');
  const forged = await fetch(acme.acsUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      SAMLResponse: stranger.response(acme.options('tess@acme.example', { inResponseTo: second.id, issuer: idp.entityId })),
      RelayState: second.relayState!,
    }),
    redirect: 'manual',
  });
  t.equal(forged.status, 401);
  const refused = await acme.server.api.get(lastTest, { token, expect: 200 });
  t.match(
    refused.body,
    { protocol: 'saml', subject: null, mapped: null, outcome: 'refused', refusal: /signature/i },
    'the refusal is kept',
  );
  const real = await acme.startLogin();
  await acme.post(stranger.response(acme.options('tess@acme.example', { inResponseTo: real.id, issuer: idp.entityId })), real.relayState);
  t.same((await acme.server.api.get(lastTest, { token, expect: 200 })).body, refused.body, 'a refused real sign-in records nothing');

  const login = await acme.startLogin();
  const signedIn = await acme.post(idp.response(acme.options('tess@acme.example', { inResponseTo: login.id })), login.relayState);
  const out = await acme.server.api.post('/auth/logout', { token: sessionCookie(signedIn)!, expect: 200 });
  t.ok(out.body.providerLogoutUrl.startsWith(`${idp.sloUrl}?SAMLRequest=`), 'a LogoutRequest to the provider’s single logout URL');
});

t.test('metadata read from a URL; SCIM group membership maps to roles as well', async (t) => {
  const idp = await TestSamlIdp.create('url-idp');
  const metadataServer = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/xml' }).end(idp.metadataXml()));
  metadataServer.listen(0, '127.0.0.1');
  await once(metadataServer, 'listening');
  t.teardown(() => new Promise<void>((resolve) => metadataServer.close(() => resolve())));
  const metadataUrl = `http://127.0.0.1:${(metadataServer.address() as AddressInfo).port}/metadata.xml`;
  const server = await sharedServer({ baseUrlIsListenAddress: true, env: { ALLOW_INSECURE_IDP: 'true' } });
  await createTenant(server, 'acme');
  const token = await adminToken(server);
  const stored = await server.api.put('/api/v1/admin/tenants/acme/identity-provider', {
    token,
    body: { protocol: 'saml', metadataUrl, roleMapping: { admins: 'ADMIN', engineers: 'EDITOR' }, allowIdpInitiated: true },
    expect: 200,
  });
  t.equal(stored.body.saml.metadataUrl, metadataUrl);
  t.equal(stored.body.saml.certificates.length, 2, 'both certificates of the fetched metadata');
  const missing = await server.api.put('/api/v1/admin/tenants/acme/identity-provider', {
    token,
    body: { protocol: 'saml', metadataUrl: `${metadataUrl.replace('/metadata.xml', '')}:1/none` },
  });
  t.equal(missing.status, 400);

  const acme = { acsUrl: `${server.baseUrl}/auth/saml/acme/callback`, spEntityId: `${server.baseUrl}/saml/metadata/acme` };
  const attributes = { email: 'eng@acme.example', groups: ['staff'] };
  const first = await postToAcs(acme.acsUrl, idp.response({ ...acme, nameId: 'eng@acme.example', attributes }));
  const userId = (await sessionOf(t, server, sessionCookie(first)!)).body.user.id as string;
  const { token: scimToken } = (await server.api.post('/api/v1/admin/tenants/acme/scim-tokens', { token, expect: 201 })).body;
  const scim = scimClient(server, 'acme', scimToken);
  await scim.post('/Groups', { schemas: [GROUP_SCHEMA], displayName: 'engineers', members: [{ value: userId }] }, { expect: 201 });
  const second = await postToAcs(acme.acsUrl, idp.response({ ...acme, nameId: 'eng@acme.example', attributes }));
  t.same((await sessionOf(t, server, sessionCookie(second)!)).body.roles, ['EDITOR'], 'the SCIM group engineers maps to EDITOR');

  await scim.post(
    '/Users',
    { userName: 'taken@acme.example', emails: [{ value: 'someone.else@acme.example', primary: true }] },
    { expect: 201 },
  );
  const clash = await postToAcs(
    acme.acsUrl,
    idp.response({ ...acme, nameId: 'taken@acme.example', attributes: { email: 'taken@acme.example' } }),
  );
  t.equal(clash.status, 302, 'an address that is another user’s username still provisions');
  const provisioned = (await sessionOf(t, server, sessionCookie(clash)!)).body.user;
  t.equal(provisioned.email, 'taken@acme.example');
  t.match(provisioned.username, /^taken@acme\.example\+[0-9a-f]{6}$/);
});

t.test('a SCIM-deactivated user cannot sign in through SAML', async (t) => {
  const idp = await TestSamlIdp.create('scim-idp');
  const acme = await samlTenant(t, idp);
  const first = await acme.post(idp.response(acme.options('dee@acme.example')));
  const token = sessionCookie(first)!;
  const userId = (await sessionOf(t, acme.server, token)).body.user.id as string;
  const { token: scimToken } = (
    await acme.server.api.post('/api/v1/admin/tenants/acme/scim-tokens', { token: await adminToken(acme.server), expect: 201 })
  ).body;
  const patched = await fetch(`${acme.server.baseUrl}/scim/v2/Users/${userId}`, {
    method: 'PATCH',
    headers: { 'content-type': 'application/scim+json', authorization: `Bearer ${scimToken}` },
    body: JSON.stringify({
      schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
      Operations: [{ op: 'replace', path: 'active', value: false }],
    }),
  });
  t.equal(patched.status, 200);
  t.equal((await sessionOf(t, acme.server, token)).status, 401, 'the existing session stops at the next request');
  const before = await sessionCount(acme.server);
  const again = await acme.post(idp.response(acme.options('dee@acme.example')));
  t.equal(again.status, 401);
  t.equal(sessionCookie(again), null);
  t.equal(await sessionCount(acme.server), before, 'JIT never reactivates: no session');
});
