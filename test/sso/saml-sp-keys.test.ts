// test-suite: once (SAML service provider keys: metadata, signed AuthnRequests against the test provider, rotation)
/**
 * The service provider's own keys per tenant (issue 46, items 1 and 3): the SP metadata publishes a
 * signing and an encryption certificate; AuthnRequests on the HTTP-Redirect binding carry an
 * RSA-SHA256 signature the test provider verifies with the published signing certificate; a tenant
 * may switch signing off; rotation publishes old and new and signs with the new; keys are sealed at rest.
 */
import { X509Certificate } from 'node:crypto';
import t from 'tap';
import { TestSamlIdp } from '../helpers/saml-idp.ts';
import { publishedCertificates, samlTenant, spMetadataOf } from './saml-fixtures.ts';
import { adminToken } from './sso-fixtures.ts';

t.test('the SP metadata publishes a signing and an encryption certificate and says AuthnRequestsSigned', async (t) => {
  const acme = await samlTenant(t, await TestSamlIdp.create('keys-idp'), 'keys-meta');
  const xml = await spMetadataOf(acme);
  t.match(xml, /AuthnRequestsSigned="true"/);
  const [signing, ...moreSigning] = publishedCertificates(xml, 'signing');
  const [encryption, ...moreEncryption] = publishedCertificates(xml, 'encryption');
  t.same([moreSigning, moreEncryption], [[], []], 'one of each before any rotation');
  t.ok(signing && encryption);
  t.not(
    new X509Certificate(signing!).publicKey.export({ type: 'spki', format: 'pem' }),
    new X509Certificate(encryption!).publicKey.export({ type: 'spki', format: 'pem' }),
    'two key pairs',
  );
  t.ok(new X509Certificate(signing!).verify(new X509Certificate(signing!).publicKey), 'a valid self-signed certificate');
  const again = await spMetadataOf(acme);
  t.same(
    [publishedCertificates(again, 'signing'), publishedCertificates(again, 'encryption')],
    [[signing], [encryption]],
    'the keys are made once',
  );

  const token = await adminToken(acme.server);
  const list = await acme.server.api.get(`/api/v1/admin/tenants/${acme.tenantId}/saml-keys`, { token, expect: 200 });
  t.same(
    list.body.data.map((k: { use: string; certificate: string; retiresAt: string | null }) => [k.use, k.certificate, k.retiresAt]),
    [
      ['signing', signing, null],
      ['encryption', encryption, null],
    ],
    'the admin list shows the published certificates',
  );

  const rows = await acme.server.database.db.selectFrom('saml_sp_keys').selectAll().where('tenant_id', '=', acme.tenantId).execute();
  t.equal(rows.length, 2);
  for (const row of rows) {
    t.notMatch(row.private_key_sealed, /PRIVATE KEY|BEGIN/, 'the private key is sealed at rest');
    t.match(row.private_key_sealed, /^v1\./);
  }
});

t.test(
  'AuthnRequests are signed (RSA-SHA256, redirect binding) and the provider verifies them with the published certificate',
  async (t) => {
    const acme = await samlTenant(t, await TestSamlIdp.create('sign-idp'), 'keys-sign');
    const [signing] = publishedCertificates(await spMetadataOf(acme), 'signing');
    const login = await acme.startLogin('/somewhere');
    const url = new URL(login.location);
    t.equal(url.searchParams.get('SigAlg'), 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256');
    t.ok(url.searchParams.get('Signature'));
    t.ok(TestSamlIdp.verifyRedirectSignature(login.location, signing!), 'the signature verifies with the published signing certificate');
    const tampered = login.location.replace(/RelayState=[^&]+/, 'RelayState=forged');
    t.notOk(TestSamlIdp.verifyRedirectSignature(tampered, signing!), 'a changed query does not verify');
    const [encryption] = publishedCertificates(await spMetadataOf(acme), 'encryption');
    t.notOk(TestSamlIdp.verifyRedirectSignature(login.location, encryption!), 'nor does another key');

    // The signed request still completes a sign-in.
    const done = await acme.post(acme.idp.response(acme.options('sam@keys-sign.example', { inResponseTo: login.id })), login.relayState);
    t.equal(done.status, 302, await done.clone().text());
  },
);

t.test('a tenant may switch signing off: no signature, no AuthnRequestsSigned', async (t) => {
  const idp = await TestSamlIdp.create('nosign-idp');
  const acme = await samlTenant(t, idp, 'keys-nosign');
  const token = await adminToken(acme.server);
  const put = await acme.server.api.put(`/api/v1/admin/tenants/${acme.tenantId}/identity-provider`, {
    token,
    body: { protocol: 'saml', metadataXml: idp.metadataXml(), allowIdpInitiated: true, signAuthnRequests: false },
    expect: 200,
  });
  t.equal(put.body.saml.signAuthnRequests, false);
  const xml = await spMetadataOf(acme);
  t.notMatch(xml, /AuthnRequestsSigned="true"/);
  t.same(publishedCertificates(xml, 'signing'), [], 'no signing certificate published');
  t.equal(publishedCertificates(xml, 'encryption').length, 1, 'the encryption certificate is still published');
  const login = await acme.startLogin();
  const url = new URL(login.location);
  t.equal(url.searchParams.get('SigAlg'), null);
  t.equal(url.searchParams.get('Signature'), null);

  const oidc = await acme.server.api.put(`/api/v1/admin/tenants/${acme.tenantId}/identity-provider`, {
    token,
    body: { protocol: 'oidc', oidc: { issuer: 'https://op.example', clientId: 'x', clientSecret: 'y' }, signAuthnRequests: true },
  });
  t.equal(oidc.status, 400, 'the switch is SAML only');
});

t.test('rotation publishes old and new signing keys, signs with the new; the old retires after its grace period', async (t) => {
  const acme = await samlTenant(t, await TestSamlIdp.create('rotate-idp'), 'keys-rotate');
  const before = await spMetadataOf(acme);
  const [oldSigning] = publishedCertificates(before, 'signing');
  const [oldEncryption] = publishedCertificates(before, 'encryption');
  const token = await adminToken(acme.server);
  const rotated = await acme.server.api.post(`/api/v1/admin/tenants/${acme.tenantId}/saml-keys/rotate`, { token, expect: 200 });
  const data = rotated.body.data as { use: string; certificate: string; retiresAt: string | null }[];
  t.same(
    data.map((k) => [k.use, k.retiresAt === null]),
    [
      ['signing', true],
      ['signing', false],
      ['encryption', true],
      ['encryption', false],
    ],
    'new keys first; the old ones retire later',
  );
  const graceDays = (Date.parse(data[1]!.retiresAt!) - Date.now()) / 86_400_000;
  t.ok(graceDays > 6.9 && graceDays <= 7, `a seven-day grace period (${graceDays})`);

  const after = await spMetadataOf(acme);
  const signing = publishedCertificates(after, 'signing');
  t.equal(signing.length, 2, 'old and new signing certificates published');
  t.equal(signing[1], oldSigning, 'the old one beside the new');
  t.not(signing[0], oldSigning);
  const [newEncryption] = publishedCertificates(after, 'encryption');
  t.not(newEncryption, oldEncryption, 'the new encryption certificate is published');

  const login = await acme.startLogin();
  t.ok(TestSamlIdp.verifyRedirectSignature(login.location, signing[0]!), 'signed with the new key');
  t.notOk(TestSamlIdp.verifyRedirectSignature(login.location, oldSigning!));

  // The grace period over: the old keys are no longer published.
  await acme.server.database.db
    .updateTable('saml_sp_keys')
    .set({ retires_at: new Date(Date.now() - 1000) })
    .where('tenant_id', '=', acme.tenantId)
    .where('retires_at', 'is not', null)
    .execute();
  t.same(publishedCertificates(await spMetadataOf(acme), 'signing'), [signing[0]], 'the old signing certificate retired');
  const list = await acme.server.api.get(`/api/v1/admin/tenants/${acme.tenantId}/saml-keys`, { token, expect: 200 });
  t.equal(list.body.data.length, 2);

  await acme.server.api.post('/api/v1/admin/tenants/nobody/saml-keys/rotate', { token, expect: 404 });
});
