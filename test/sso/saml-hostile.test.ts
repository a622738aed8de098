// test-suite: once (SAML response checks happen before any write)
/**
 * Hostile SAML responses, each its own test: every one is refused with 401 and creates no session.
 * They start from a response the test identity provider signs correctly for an SP-initiated sign-in
 * and break one thing: signature wrapping (XSW1–XSW8), signature scope, algorithms and keys, times,
 * audience, destination, recipient, InResponseTo, relay state, replay, XML tricks, NameID format,
 * another tenant, issuer.
 */
import type { Test } from 'tap';
import t from 'tap';
import { SignedXml } from 'xml-crypto';
import { makeSamlKeys, samlId, TestSamlIdp, type SamlKeys, type SamlResponseOptions } from '../helpers/saml-idp.ts';
import { XSW_VARIANTS, xswVariants } from '../helpers/saml-xsw.ts';
import { samlTenant, type SamlTenant } from './saml-fixtures.ts';
import { adminToken, createTenant, sessionCookie, sessionCount } from './sso-fixtures.ts';

const VICTIM = 'victim@acme.example';
const ATTACKER = 'attacker@acme.example';

let acme: SamlTenant;
let other: SamlTenant;
let untrusted: SamlKeys;

t.before(async () => {
  const idp = await TestSamlIdp.create('hostile-idp');
  acme = await samlTenant(t, idp);
  other = await samlTenant(t, await TestSamlIdp.create('other-idp'), 'other', acme.server);
  untrusted = await makeSamlKeys('attacker');
});

/** Posts `samlResponse` (answering `login` when given) and checks the refusal: 401, no cookie, no new session. */
async function refused(t: Test, samlResponse: string, relayState: string | undefined, reason: RegExp, tenantId?: string) {
  const before = await sessionCount(acme.server);
  const r = await acme.post(samlResponse, relayState, tenantId);
  const body = (await r.json()) as { status: number; code?: string; detail: string };
  t.equal(r.status, 401, body.detail);
  t.equal(body.code, 'SSO_REJECTED');
  t.match(body.detail, reason);
  t.equal(sessionCookie(r), null, 'no session cookie');
  t.equal(await sessionCount(acme.server), before, 'no session created');
}

/** An SP-initiated sign-in in progress and response options answering it. */
async function solicited(overrides: Partial<SamlResponseOptions> = {}) {
  const login = await acme.startLogin();
  return { login, options: acme.options(VICTIM, { inResponseTo: login.id, ...overrides }) };
}

t.test('control: the untampered response signs in', async (t) => {
  const { login, options } = await solicited();
  const r = await acme.post(acme.idp.response(options), login.relayState);
  t.equal(r.status, 302);
  t.ok(sessionCookie(r));
});

for (const variant of XSW_VARIANTS) {
  t.test(`signature wrapping ${variant}`, async (t) => {
    const { login, options } = await solicited();
    const signed = acme.idp.responseXml(options);
    const attack = xswVariants(signed, ATTACKER)[variant];
    const decoded = Buffer.from(attack, 'base64').toString('utf8');
    t.match(decoded, ATTACKER, 'the attack carries the evil NameID');
    t.match(decoded, VICTIM, 'and keeps the signed original');
    await refused(t, attack, login.relayState, /Response|Assertion|signature/);
  });
}

t.test('an unsigned assertion inside a signed response', async (t) => {
  const { login, options } = await solicited({ signAssertion: false, signResponse: true });
  await refused(t, acme.idp.response(options), login.relayState, /Assertion must carry exactly one signature/);
});

t.test('an unsigned response with an unsigned assertion', async (t) => {
  const { login, options } = await solicited({ signAssertion: false, signResponse: false });
  await refused(t, acme.idp.response(options), login.relayState, /signature/);
});

t.test('a comment inside NameID (added after signing, which exclusive c14n does not see)', async (t) => {
  const { login, options } = await solicited({ nameId: 'victim@acme.example.attacker.example' });
  const xml = acme.idp.responseXml(options).replace('victim@acme.example.attacker.example', 'victim@acme.example<!---->.attacker.example');
  await refused(t, Buffer.from(xml).toString('base64'), login.relayState, /comment/);
});

t.test('an RSA-SHA1 signature', async (t) => {
  const { login, options } = await solicited({ signatureAlgorithm: 'sha1' });
  await refused(t, acme.idp.response(options), login.relayState, /signature algorithm .*rsa-sha1/);
});

t.test('a SHA-1 digest', async (t) => {
  const { login, options } = await solicited({ digestAlgorithm: 'sha1' });
  await refused(t, acme.idp.response(options), login.relayState, /digest algorithm .*sha1/);
});

t.test('signed by a key whose certificate is in KeyInfo but not trusted', async (t) => {
  const { login, options } = await solicited({ keys: untrusted });
  await refused(t, acme.idp.response(options), login.relayState, /signature/i);
});

t.test('an attribute changed after signing', async (t) => {
  const { login, options } = await solicited();
  const xml = acme.idp.responseXml(options).replace('>Research<', '>Finance<');
  await refused(t, Buffer.from(xml).toString('base64'), login.relayState, /signature/i);
});

t.test('an expired assertion', async (t) => {
  const { login, options } = await solicited({
    notBefore: new Date(Date.now() - 20 * 60_000),
    notOnOrAfter: new Date(Date.now() - 10 * 60_000),
  });
  await refused(t, acme.idp.response(options), login.relayState, /expired|NotOnOrAfter|subject confirmation/i);
});

t.test('an assertion not yet valid', async (t) => {
  const { login, options } = await solicited({
    notBefore: new Date(Date.now() + 10 * 60_000),
    notOnOrAfter: new Date(Date.now() + 20 * 60_000),
  });
  await refused(t, acme.idp.response(options), login.relayState, /not yet valid|NotBefore/i);
});

t.test('an unsolicited assertion issued too long ago (outside the short window)', async (t) => {
  const options = acme.options(VICTIM, {
    issueInstant: new Date(Date.now() - 10 * 60_000),
    notOnOrAfter: new Date(Date.now() + 60 * 60_000),
  });
  await refused(t, acme.idp.response(options), undefined, /expired|too old|age/i);
});

t.test('a validly signed assertion in a Response that says no (Responder, AuthnFailed)', async (t) => {
  const { login, options } = await solicited({
    statusCode: 'urn:oasis:names:tc:SAML:2.0:status:Responder',
    subStatusCode: 'urn:oasis:names:tc:SAML:2.0:status:AuthnFailed',
  });
  await refused(t, acme.idp.response(options), login.relayState, /the provider answered Responder \(AuthnFailed\), not Success/);
});

t.test('an unsolicited response whose subject confirmation has expired', async (t) => {
  // Recent, its conditions still valid: only the SubjectConfirmationData's NotOnOrAfter has passed.
  const options = acme.options(VICTIM, { confirmationNotOnOrAfter: new Date(Date.now() - 5 * 60_000) });
  await refused(t, acme.idp.response(options), undefined, /SubjectConfirmationData has expired/);
});

t.test('elements nested 30,000 deep', async (t) => {
  const { login, options } = await solicited();
  const nested = `${'<x>'.repeat(30_000)}${'</x>'.repeat(30_000)}`;
  const xml = acme.idp.responseXml(options).replace('</saml:Issuer>', `</saml:Issuer>${nested}`);
  await refused(t, Buffer.from(xml).toString('base64'), login.relayState, /nested more than 64 deep/);
});

t.test('the wrong Audience', async (t) => {
  const { login, options } = await solicited({ audience: 'https://some-other-sp.example/metadata' });
  await refused(t, acme.idp.response(options), login.relayState, /audience/i);
});

t.test('the wrong Destination', async (t) => {
  const { login, options } = await solicited({ destination: 'https://some-other-sp.example/acs' });
  await refused(t, acme.idp.response(options), login.relayState, /Destination/);
});

t.test('the wrong Recipient', async (t) => {
  const { login, options } = await solicited({ recipient: 'https://some-other-sp.example/acs' });
  await refused(t, acme.idp.response(options), login.relayState, /Recipient/);
});

t.test('an InResponseTo naming no request we sent', async (t) => {
  const { login, options } = await solicited({ inResponseTo: samlId() });
  await refused(t, acme.idp.response(options), login.relayState, /InResponseTo/);
});

t.test('an InResponseTo of another tenant’s request', async (t) => {
  const otherLogin = await other.startLogin();
  const options = acme.options(VICTIM, { inResponseTo: otherLogin.id });
  await refused(t, acme.idp.response(options), otherLogin.relayState, /InResponseTo/);
});

t.test('a solicited response with another relay state (CSRF)', async (t) => {
  const { options } = await solicited();
  await refused(t, acme.idp.response(options), 'forged-relay-state', /RelayState/);
});

t.test('a replayed assertion id', async (t) => {
  const assertionId = samlId();
  const first = acme.options(VICTIM, { assertionId });
  const ok = await acme.post(acme.idp.response(first));
  t.equal(ok.status, 302, 'the first use signs in');
  await refused(t, acme.idp.response(acme.options(VICTIM, { assertionId })), undefined, /already used/);
});

t.test('the very same response posted twice', async (t) => {
  const { login, options } = await solicited();
  const response = acme.idp.response(options);
  t.equal((await acme.post(response, login.relayState)).status, 302);
  await refused(t, response, login.relayState, /InResponseTo|already used/);
});

t.test('a DOCTYPE with an external entity (XXE)', async (t) => {
  const { login, options } = await solicited();
  const xml = `<!DOCTYPE samlp:Response [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>${acme.idp.responseXml(options).replace(VICTIM, '&xxe;')}`;
  await refused(t, Buffer.from(xml).toString('base64'), login.relayState, /DOCTYPE/);
});

t.test('an entity expansion bomb', async (t) => {
  const bomb =
    '<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]><samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol">&lol2;</samlp:Response>';
  await refused(t, Buffer.from(bomb).toString('base64'), undefined, /DOCTYPE/);
});

t.test('multiple root elements', async (t) => {
  const { login, options } = await solicited();
  const xml = acme.idp.responseXml(options);
  await refused(t, Buffer.from(`${xml}${xml}`).toString('base64'), login.relayState, /well-formed/);
});

t.test('two assertions, both validly signed', async (t) => {
  const { login, options } = await solicited({ signResponse: false });
  const one = acme.idp.responseXml(options);
  const assertion = /<saml:Assertion[\s\S]*<\/saml:Assertion>/.exec(
    acme.idp.responseXml(acme.options(ATTACKER, { inResponseTo: login.id, signResponse: false })),
  )![0];
  const xml = one.replace('</samlp:Response>', `${assertion}</samlp:Response>`);
  await refused(t, Buffer.from(xml).toString('base64'), login.relayState, /exactly one Assertion/);
});

t.test('the wrong NameID format', async (t) => {
  const { login, options } = await solicited({ nameIdFormat: 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent' });
  await refused(t, acme.idp.response(options), login.relayState, /NameID format/);
});

t.test('a response for another tenant posted to this tenant’s ACS', async (t) => {
  const otherLogin = await other.startLogin();
  const forOther = other.idp.response(other.options(VICTIM, { inResponseTo: otherLogin.id }));
  await refused(t, forOther, otherLogin.relayState, /Destination/);
});

t.test('a response signed by another tenant’s provider, addressed to this tenant', async (t) => {
  const { login, options } = await solicited({ keys: other.idp.keys, issuer: other.idp.entityId });
  await refused(t, other.idp.response(options), login.relayState, /signature|issuer/i);
});

t.test('the wrong Issuer, correctly signed', async (t) => {
  const { login, options } = await solicited({ issuer: 'https://impostor.example/metadata' });
  await refused(t, acme.idp.response(options), login.relayState, /Issuer .* is not this tenant's identity provider/);
});

t.test('a signature that references another element than the assertion', async (t) => {
  const { login, options } = await solicited({ signAssertion: false, signResponse: false });
  const xml = acme.idp.responseXml(options);
  const signer = new SignedXml({ privateKey: acme.idp.keys.privateKeyPem, publicCert: acme.idp.keys.certificatePem });
  signer.signatureAlgorithm = 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256';
  signer.canonicalizationAlgorithm = 'http://www.w3.org/2001/10/xml-exc-c14n#';
  signer.addReference({
    xpath: "//*[local-name(.)='Conditions']",
    transforms: ['http://www.w3.org/2001/10/xml-exc-c14n#'],
    digestAlgorithm: 'http://www.w3.org/2001/04/xmlenc#sha256',
  });
  signer.computeSignature(xml, { location: { reference: "//*[local-name(.)='Assertion']/*[local-name(.)='Issuer']", action: 'after' } });
  await refused(t, Buffer.from(signer.getSignedXml()).toString('base64'), login.relayState, /does not reference the Assertion/);
});

t.test('an unsigned Response for a tenant that wants signed responses (the assertion alone is signed)', async (t) => {
  const { server } = acme;
  await createTenant(server, 'strict');
  await server.api.put('/api/v1/admin/tenants/strict/identity-provider', {
    token: await adminToken(server),
    body: { protocol: 'saml', saml: acme.idp.settings({ signedResponses: true }), allowIdpInitiated: true },
    expect: 200,
  });
  const acsUrl = `${server.baseUrl}/auth/saml/strict/callback`;
  const options = { acsUrl, spEntityId: `${server.baseUrl}/saml/metadata/strict`, nameId: VICTIM };
  const signed = await acme.post(acme.idp.response(options), undefined, 'strict');
  t.equal(signed.status, 302, 'control: both signatures present');
  await refused(
    t,
    acme.idp.response({ ...options, signResponse: false }),
    undefined,
    /Response must carry exactly one signature/,
    'strict',
  );
});

t.test('not base64 at all', async (t) => {
  await refused(t, '<samlp:Response/>', undefined, /not base64/);
});
