// test-suite: once (domain verification and routing rules)
/**
 * Domains end to end: claim, verification by a TXT record served by a DNS server on loopback and by a
 * mailed code, one owner per domain, discovery, tenant resolution at password sign-in (an account
 * registered before its domain was verified moves into the tenant), and enforced single sign-on
 * refusing password sign-in and registration.
 */
import t from 'tap';
import { startDnsServer } from '../helpers/dns-server.ts';
import { TestSamlIdp } from '../helpers/saml-idp.ts';
import { startServer } from '../helpers/server.ts';
import { adminToken, createTenant, mailedCode, RecordingMail, registerProven, sessionOf, verifiedDomain } from './sso-fixtures.ts';

const PASSWORD = 'correct horse battery staple';

t.test('DNS verification: pending until the TXT record holds the token; then the domain routes sign-ins', async (t) => {
  const dns = await startDnsServer(t);
  const server = await startServer(t, { env: { DNS_RESOLVER: dns.address } });
  await createTenant(server, 'acme');
  await createTenant(server, 'rival');
  const token = await adminToken(server);
  const claim = await server.api.post('/api/v1/admin/tenants/acme/domains', { token, body: { domain: 'Acme.Example' }, expect: 201 });
  t.equal(claim.body.domain, 'acme.example');
  t.equal(claim.body.status, 'pending');
  t.equal(claim.body.txtRecordName, '_schemaforge-verification.acme.example');
  t.equal(claim.body.txtRecordValue, `schemaforge-verification=${claim.body.verificationToken}`);
  t.ok(claim.body.verificationToken.length >= 32);
  const rivalClaim = await server.api.post('/api/v1/admin/tenants/rival/domains', { token, body: { domain: 'acme.example' }, expect: 201 });
  t.not(rivalClaim.body.verificationToken, claim.body.verificationToken, 'each claim has its own token');

  const discoverBefore = await server.api.get('/auth/discover?email=wile%40acme.example', { expect: 200 });
  t.equal(discoverBefore.body.tenantId, 'default', 'a pending domain routes nowhere');

  const missing = await server.api.post('/api/v1/admin/tenants/acme/domains/acme.example/verify', { token, body: { method: 'dns' } });
  t.equal(missing.status, 409);
  t.equal(missing.body.code, 'DOMAIN_NOT_VERIFIED');
  t.match(missing.body.detail, /No TXT record _schemaforge-verification\.acme\.example holds/);
  dns.setTxt('_schemaforge-verification.acme.example', ['v=spf1 -all', rivalClaim.body.txtRecordValue]);
  const wrong = await server.api.post('/api/v1/admin/tenants/acme/domains/acme.example/verify', { token });
  t.equal(wrong.status, 409, 'another tenant’s token does not verify this claim');
  t.match(wrong.body.detail, /found "v=spf1 -all"/, 'the answer names what was found');

  dns.setTxt('_schemaforge-verification.acme.example', ['v=spf1 -all', claim.body.txtRecordValue]);
  const verified = await server.api.post('/api/v1/admin/tenants/acme/domains/acme.example/verify', { token, expect: 200 });
  t.equal(verified.body.status, 'verified');
  t.ok(verified.body.verifiedAt);

  dns.setTxt('_schemaforge-verification.acme.example', [rivalClaim.body.txtRecordValue]);
  const taken = await server.api.post('/api/v1/admin/tenants/rival/domains/acme.example/verify', { token });
  t.equal(taken.status, 409);
  t.equal(taken.body.code, 'DOMAIN_TAKEN', 'a domain belongs to one tenant');

  const discover = await server.api.get('/auth/discover?email=wile%40ACME.example', { expect: 200 });
  t.same(discover.body, { tenantId: 'acme', authMethod: 'local', enforceSso: false });
  const list = await server.api.get('/api/v1/admin/tenants/acme/domains', { token, expect: 200 });
  t.same(
    list.body.content.map((d: { domain: string; status: string }) => [d.domain, d.status]),
    [['acme.example', 'verified']],
  );
  t.equal((await server.api.post('/api/v1/admin/tenants/acme/domains', { token, body: { domain: 'not a domain' } })).status, 400);
  t.equal((await server.api.post('/api/v1/admin/tenants/acme/domains', { token, body: { domain: 'acme.example' } })).status, 409);
  t.equal((await server.api.post('/api/v1/admin/tenants/acme/domains', { body: { domain: 'x.example' } })).status, 401, 'ADMIN only');
  t.equal((await server.api.get('/api/v1/admin/tenants/acme/domains/unknown.example', { token })).status, 404);
});

t.test('mail verification: a code to an administrator mailbox of the domain', async (t) => {
  const mail = new RecordingMail();
  const server = await startServer(t, { mail });
  await createTenant(server, 'initech');
  const token = await adminToken(server);
  await server.api.post('/api/v1/admin/tenants/initech/domains', { token, body: { domain: 'initech.example' }, expect: 201 });
  const stranger = await server.api.post('/api/v1/admin/tenants/initech/domains/initech.example/verification-mail', {
    token,
    body: { to: 'bill@initech.example' },
  });
  t.equal(stranger.status, 400, 'only admin@, administrator@, hostmaster@, postmaster@ or webmaster@ the domain');
  const elsewhere = await server.api.post('/api/v1/admin/tenants/initech/domains/initech.example/verification-mail', {
    token,
    body: { to: 'hostmaster@attacker.example' },
  });
  t.equal(elsewhere.status, 400);
  t.equal(mail.sent.length, 0);
  await server.api.post('/api/v1/admin/tenants/initech/domains/initech.example/verification-mail', {
    token,
    body: { to: 'Hostmaster@initech.example' },
    expect: 202,
  });
  t.equal(mail.sent.length, 1);
  t.equal(mail.sent[0]!.to, 'hostmaster@initech.example');
  const code = /verification code is (\d{8})/.exec(mail.sent[0]!.text)![1]!;
  const wrong = await server.api.post('/api/v1/admin/tenants/initech/domains/initech.example/verify', {
    token,
    body: { method: 'mail', code: code === '00000000' ? '11111111' : '00000000' },
  });
  t.equal(wrong.status, 409);
  const ok = await server.api.post('/api/v1/admin/tenants/initech/domains/initech.example/verify', {
    token,
    body: { method: 'mail', code },
    expect: 200,
  });
  t.equal(ok.body.status, 'verified');
});

t.test(
  'an account registered before its domain was verified signs in to the verified domain’s tenant, after proving its address',
  async (t) => {
    const dns = await startDnsServer(t);
    const mail = new RecordingMail();
    const server = await startServer(t, { env: { DNS_RESOLVER: dns.address }, mail });
    await createTenant(server, 'umbrella');
    const early = await server.api.post('/auth/local/register', {
      body: { email: 'alice@umbrella.example', password: PASSWORD, username: 'alice', displayName: 'Alice (default)' },
      expect: 201,
    });
    t.equal(early.body.user.tenantId, 'default', 'before verification the account lands in default');
    await verifiedDomain(server, dns, 'umbrella', 'umbrella.example');
    const again = await server.api.post('/auth/local/register', {
      body: { email: 'alice@umbrella.example', password: `${PASSWORD}!`, username: 'alice2', displayName: 'Alice (again)' },
    });
    t.equal(again.status, 409, 'the address is taken in the tenant: the account moved there, and a used account is not replaced');
    const unproven = await server.api.post('/auth/login', { body: { email: 'alice@umbrella.example', password: PASSWORD } });
    t.equal(unproven.status, 403, 'its address was never proven: proven first');
    const proven = await server.api.post('/auth/local/verify-email', {
      body: { email: 'alice@umbrella.example', code: mailedCode(mail, 'alice@umbrella.example') },
      expect: 200,
    });
    t.same([proven.body.user.id, proven.body.user.tenantId], [early.body.user.id, 'umbrella'], 'the same account, now the tenant’s');
    const login = await server.api.post('/auth/login', { body: { email: 'alice@umbrella.example', password: PASSWORD }, expect: 200 });
    t.equal(login.body.user.id, early.body.user.id);
    t.equal((await sessionOf(t, server, login.body.token)).body.tenantId, 'umbrella', 'the session names the tenant');
  },
);

t.test('enforced single sign-on refuses password sign-in and registration for the domain', async (t) => {
  const dns = await startDnsServer(t);
  const mail = new RecordingMail();
  const server = await startServer(t, { env: { DNS_RESOLVER: dns.address }, baseUrlIsListenAddress: true, mail });
  await createTenant(server, 'hooli');
  const token = await adminToken(server);
  await server.api.post('/api/v1/admin/tenants/hooli/domains', { token, body: { domain: 'pending.example' }, expect: 201 });
  const unverified = await server.api.patch('/api/v1/admin/tenants/hooli/domains/pending.example', { token, body: { enforceSso: true } });
  t.equal(unverified.status, 409, 'only a verified domain can be enforced');
  await verifiedDomain(server, dns, 'hooli', 'hooli.example');
  await registerProven(server, mail, { email: 'gavin@hooli.example', password: PASSWORD, username: 'gavin', displayName: 'Gavin' });
  const noProvider = await server.api.patch('/api/v1/admin/tenants/hooli/domains/hooli.example', { token, body: { enforceSso: true } });
  t.equal(noProvider.status, 409, 'nothing to enforce without a provider');
  const idp = await TestSamlIdp.create('hooli-idp');
  await server.api.put('/api/v1/admin/tenants/hooli/identity-provider', {
    token,
    body: { protocol: 'saml', saml: idp.settings() },
    expect: 200,
  });
  const discover = await server.api.get('/auth/discover?email=gavin%40hooli.example', { expect: 200 });
  t.same(discover.body, {
    tenantId: 'hooli',
    authMethod: 'saml',
    enforceSso: false,
    provider: { protocol: 'saml', loginUrl: `${server.baseUrl}/auth/saml/hooli/login`, entityId: idp.entityId, ssoUrl: idp.ssoUrl },
  });
  t.equal(
    (await server.api.post('/auth/login', { body: { email: 'gavin@hooli.example', password: PASSWORD } })).status,
    200,
    'not enforced yet',
  );

  const enforced = await server.api.patch('/api/v1/admin/tenants/hooli/domains/hooli.example', {
    token,
    body: { enforceSso: true },
    expect: 200,
  });
  t.equal(enforced.body.enforceSso, true);
  const login = await server.api.post('/auth/login', { body: { email: 'gavin@hooli.example', password: PASSWORD } });
  t.equal(login.status, 403);
  t.equal(login.body.code, 'SSO_REQUIRED');
  const register = await server.api.post('/auth/local/register', {
    body: { email: 'richard@hooli.example', password: PASSWORD, username: 'richard', displayName: 'Richard' },
  });
  t.equal(register.status, 403);
  t.equal((await server.api.get('/auth/discover?email=gavin%40hooli.example')).body.enforceSso, true);
  t.equal(
    (await server.api.post('/auth/login', { body: { email: 'someone@elsewhere.example', password: PASSWORD } })).status,
    401,
    'other domains unaffected',
  );

  await server.api.patch('/api/v1/admin/tenants/hooli/domains/hooli.example', { token, body: { enforceSso: false }, expect: 200 });
  t.equal(
    (await server.api.post('/auth/login', { body: { email: 'gavin@hooli.example', password: PASSWORD } })).status,
    200,
    'lifted again',
  );
  await server.api.delete('/api/v1/admin/tenants/hooli/domains/hooli.example', { token, expect: 204 });
  t.equal(
    (await server.api.get('/auth/discover?email=gavin%40hooli.example')).body.tenantId,
    'default',
    'a released domain routes nowhere',
  );
});
