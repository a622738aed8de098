/**
 * The hostile SAML responses, as one table that two files run: test/sso/saml-hostile.test.ts posts
 * them as they are, test/sso/saml-encrypted.test.ts with their Assertions encrypted to the tenant's SP
 * encryption certificate (what was done to an Assertion then travels inside the EncryptedAssertion,
 * and must be caught after decryption). Each starts from a response the test identity provider signs
 * correctly for an SP-initiated sign-in and breaks one thing: signature wrapping (XSW1–XSW8),
 * signature scope, algorithms and keys, times, audience, destination, recipient, InResponseTo, relay
 * state, replay, XML tricks, NameID format, another tenant, issuer. Every one is refused with 401 and
 * creates no session.
 */
import type { Test } from 'tap';
import { SignedXml } from 'xml-crypto';
import {
  encryptAssertions,
  makeSamlKeys,
  samlId,
  TestSamlIdp,
  type AssertionEncryption,
  type SamlKeys,
  type SamlResponseOptions,
} from '../helpers/saml-idp.ts';
import { XSW_VARIANTS, xswVariants } from '../helpers/saml-xsw.ts';
import { samlTenant, spEncryptionCertificate, type SamlTenant } from './saml-fixtures.ts';
import { adminToken, createTenant, sessionCookie, sessionCount } from './sso-fixtures.ts';

const VICTIM = 'victim@acme.example';
const ATTACKER = 'attacker@acme.example';

export interface HostileContext {
  acme: SamlTenant;
  other: SamlTenant;
  untrusted: SamlKeys;
  /** Prefixes the tenant ids, so a file may run the table beside tenants of its own. */
  prefix: string;
  /** How the run encrypts Assertions; null: posted as they are. */
  encryption: AssertionEncryption | null;
  /** A correctly made response of `idp` (acme's unless given), its Assertion encrypted when the run encrypts. */
  respond(options: SamlResponseOptions, idp?: TestSamlIdp): Promise<string>;
  /** A (tampered) response document as posted: base64, its Assertions encrypted when the run encrypts. */
  finish(xml: string): Promise<string>;
  /** An SP-initiated sign-in in progress and response options answering it. */
  solicited(overrides?: Partial<SamlResponseOptions>): Promise<{ login: { id: string; relayState: string }; options: SamlResponseOptions }>;
}

/** The tenants (`acme`, `other`) and keys of a run; `encrypt`: Assertions go to acme's SP encryption certificate. */
export async function hostileContext(t: Test, { prefix = '', encrypt = false }: { prefix?: string; encrypt?: boolean } = {}) {
  const acme = await samlTenant(t, await TestSamlIdp.create('hostile-idp'), `${prefix}acme`);
  const other = await samlTenant(t, await TestSamlIdp.create('other-idp'), `${prefix}other`, acme.server);
  const untrusted = await makeSamlKeys('attacker');
  const encryption = encrypt ? { certificatePem: await spEncryptionCertificate(acme) } : null;
  const context: HostileContext = {
    acme,
    other,
    untrusted,
    prefix,
    encryption,
    respond: async (options, idp = acme.idp) => (encryption ? idp.encryptedResponse(options, encryption) : idp.response(options)),
    finish: async (xml) => Buffer.from(encryption ? await encryptAssertions(xml, encryption) : xml).toString('base64'),
    async solicited(overrides = {}) {
      const login = await acme.startLogin();
      return { login, options: acme.options(VICTIM, { inResponseTo: login.id, ...overrides }) };
    },
  };
  return context;
}

interface Attempt {
  response: string;
  relayState: string | undefined;
  reason: RegExp;
  /** Posted to this tenant's ACS instead of acme's. */
  tenantId?: string;
}

interface HostileCase {
  name: string;
  /** The response holds no Assertion, so encrypting changes nothing. */
  noAssertion?: true;
  attempt(ctx: HostileContext, t: Test): Promise<Attempt>;
}

/** Posts the case's response and checks the refusal: 401, its reason, no cookie, no new session. */
export async function runHostileCase(t: Test, ctx: HostileContext, hostile: HostileCase): Promise<void> {
  const { response, relayState, reason, tenantId } = await hostile.attempt(ctx, t);
  if (ctx.encryption && !hostile.noAssertion) {
    t.match(Buffer.from(response, 'base64').toString('utf8'), /<saml:EncryptedAssertion/, 'the Assertion travels encrypted');
  }
  const before = await sessionCount(ctx.acme.server);
  const r = await ctx.acme.post(response, relayState, tenantId);
  const body = (await r.json()) as { status: number; code?: string; detail: string };
  t.equal(r.status, 401, body.detail);
  t.equal(body.code, 'SSO_REJECTED');
  t.match(body.detail, reason);
  t.equal(sessionCookie(r), null, 'no session cookie');
  t.equal(await sessionCount(ctx.acme.server), before, 'no session created');
}

const base64 = (xml: string) => Buffer.from(xml).toString('base64');

export const HOSTILE_CASES: HostileCase[] = [
  ...XSW_VARIANTS.map((variant): HostileCase => ({
    name: `signature wrapping ${variant}`,
    async attempt(ctx, t) {
      const { login, options } = await ctx.solicited();
      const signed = ctx.acme.idp.responseXml(options);
      const decoded = Buffer.from(xswVariants(signed, ATTACKER)[variant], 'base64').toString('utf8');
      t.match(decoded, ATTACKER, 'the attack carries the evil NameID');
      t.match(decoded, VICTIM, 'and keeps the signed original');
      return { response: await ctx.finish(decoded), relayState: login.relayState, reason: /Response|Assertion|signature/ };
    },
  })),
  {
    name: 'an unsigned assertion inside a signed response',
    async attempt(ctx) {
      const { login, options } = await ctx.solicited({ signAssertion: false, signResponse: true });
      return { response: await ctx.respond(options), relayState: login.relayState, reason: /Assertion must carry exactly one signature/ };
    },
  },
  {
    name: 'an unsigned response with an unsigned assertion',
    async attempt(ctx) {
      const { login, options } = await ctx.solicited({ signAssertion: false, signResponse: false });
      return { response: await ctx.respond(options), relayState: login.relayState, reason: /signature/ };
    },
  },
  {
    name: 'a comment inside NameID (added after signing, which exclusive c14n does not see)',
    async attempt(ctx) {
      const { login, options } = await ctx.solicited({ nameId: 'victim@acme.example.attacker.example' });
      const xml = ctx.acme.idp
        .responseXml(options)
        .replace('victim@acme.example.attacker.example', 'victim@acme.example<!---->.attacker.example');
      return { response: await ctx.finish(xml), relayState: login.relayState, reason: /comment/ };
    },
  },
  {
    name: 'an RSA-SHA1 signature',
    async attempt(ctx) {
      const { login, options } = await ctx.solicited({ signatureAlgorithm: 'sha1' });
      return { response: await ctx.respond(options), relayState: login.relayState, reason: /signature algorithm .*rsa-sha1/ };
    },
  },
  {
    name: 'a SHA-1 digest',
    async attempt(ctx) {
      const { login, options } = await ctx.solicited({ digestAlgorithm: 'sha1' });
      return { response: await ctx.respond(options), relayState: login.relayState, reason: /digest algorithm .*sha1/ };
    },
  },
  {
    name: 'signed by a key whose certificate is in KeyInfo but not trusted',
    async attempt(ctx) {
      const { login, options } = await ctx.solicited({ keys: ctx.untrusted });
      return { response: await ctx.respond(options), relayState: login.relayState, reason: /signature/i };
    },
  },
  {
    name: 'an attribute changed after signing',
    async attempt(ctx) {
      const { login, options } = await ctx.solicited();
      const xml = ctx.acme.idp.responseXml(options).replace('>Research<', '>Finance<');
      return { response: await ctx.finish(xml), relayState: login.relayState, reason: /signature/i };
    },
  },
  {
    name: 'an expired assertion',
    async attempt(ctx) {
      const { login, options } = await ctx.solicited({
        notBefore: new Date(Date.now() - 20 * 60_000),
        notOnOrAfter: new Date(Date.now() - 10 * 60_000),
      });
      return { response: await ctx.respond(options), relayState: login.relayState, reason: /expired|NotOnOrAfter|subject confirmation/i };
    },
  },
  {
    name: 'an assertion not yet valid',
    async attempt(ctx) {
      const { login, options } = await ctx.solicited({
        notBefore: new Date(Date.now() + 10 * 60_000),
        notOnOrAfter: new Date(Date.now() + 20 * 60_000),
      });
      return { response: await ctx.respond(options), relayState: login.relayState, reason: /not yet valid|NotBefore/i };
    },
  },
  {
    name: 'an unsolicited assertion issued too long ago (outside the short window)',
    async attempt(ctx) {
      const options = ctx.acme.options(VICTIM, {
        issueInstant: new Date(Date.now() - 10 * 60_000),
        notOnOrAfter: new Date(Date.now() + 60 * 60_000),
      });
      return { response: await ctx.respond(options), relayState: undefined, reason: /expired|too old|age/i };
    },
  },
  {
    name: 'a validly signed assertion in a Response that says no (Responder, AuthnFailed)',
    async attempt(ctx) {
      const { login, options } = await ctx.solicited({
        statusCode: 'urn:oasis:names:tc:SAML:2.0:status:Responder',
        subStatusCode: 'urn:oasis:names:tc:SAML:2.0:status:AuthnFailed',
      });
      return {
        response: await ctx.respond(options),
        relayState: login.relayState,
        reason: /the provider answered Responder \(AuthnFailed\), not Success/,
      };
    },
  },
  {
    name: 'an unsolicited response whose subject confirmation has expired',
    async attempt(ctx) {
      // Recent, its conditions still valid: only the SubjectConfirmationData's NotOnOrAfter has passed.
      const options = ctx.acme.options(VICTIM, { confirmationNotOnOrAfter: new Date(Date.now() - 5 * 60_000) });
      return { response: await ctx.respond(options), relayState: undefined, reason: /SubjectConfirmationData has expired/ };
    },
  },
  {
    name: 'elements nested 30,000 deep (10,000 encrypted, within the size limit)',
    async attempt(ctx) {
      const { login, options } = await ctx.solicited();
      const depth = ctx.encryption ? 10_000 : 30_000;
      const nested = `${'<x>'.repeat(depth)}${'</x>'.repeat(depth)}`;
      // After the Assertion's Issuer: inside the encrypted payload when the run encrypts.
      const xml = ctx.acme.idp.responseXml(options).replace(/(<saml:Assertion[\s\S]*?<\/saml:Issuer>)/, `$1${nested}`);
      return { response: await ctx.finish(xml), relayState: login.relayState, reason: /nested more than 64 deep/ };
    },
  },
  {
    name: 'the wrong Audience',
    async attempt(ctx) {
      const { login, options } = await ctx.solicited({ audience: 'https://some-other-sp.example/metadata' });
      return { response: await ctx.respond(options), relayState: login.relayState, reason: /audience/i };
    },
  },
  {
    name: 'the wrong Destination',
    async attempt(ctx) {
      const { login, options } = await ctx.solicited({ destination: 'https://some-other-sp.example/acs' });
      return { response: await ctx.respond(options), relayState: login.relayState, reason: /Destination/ };
    },
  },
  {
    name: 'the wrong Recipient',
    async attempt(ctx) {
      const { login, options } = await ctx.solicited({ recipient: 'https://some-other-sp.example/acs' });
      return { response: await ctx.respond(options), relayState: login.relayState, reason: /Recipient/ };
    },
  },
  {
    name: 'an InResponseTo naming no request we sent',
    async attempt(ctx) {
      const { login, options } = await ctx.solicited({ inResponseTo: samlId() });
      return { response: await ctx.respond(options), relayState: login.relayState, reason: /InResponseTo/ };
    },
  },
  {
    name: 'an InResponseTo of another tenant’s request',
    async attempt(ctx) {
      const otherLogin = await ctx.other.startLogin();
      const options = ctx.acme.options(VICTIM, { inResponseTo: otherLogin.id });
      return { response: await ctx.respond(options), relayState: otherLogin.relayState, reason: /InResponseTo/ };
    },
  },
  {
    name: 'a solicited response with another relay state (CSRF)',
    async attempt(ctx) {
      const { options } = await ctx.solicited();
      return { response: await ctx.respond(options), relayState: 'forged-relay-state', reason: /RelayState/ };
    },
  },
  {
    name: 'a replayed assertion id',
    async attempt(ctx, t) {
      const assertionId = samlId();
      const ok = await ctx.acme.post(await ctx.respond(ctx.acme.options(VICTIM, { assertionId })));
      t.equal(ok.status, 302, 'the first use signs in');
      return { response: await ctx.respond(ctx.acme.options(VICTIM, { assertionId })), relayState: undefined, reason: /already used/ };
    },
  },
  {
    name: 'the very same response posted twice',
    async attempt(ctx, t) {
      const { login, options } = await ctx.solicited();
      const response = await ctx.respond(options);
      t.equal((await ctx.acme.post(response, login.relayState)).status, 302);
      return { response, relayState: login.relayState, reason: /InResponseTo|already used/ };
    },
  },
  {
    name: 'a DOCTYPE with an external entity (XXE)',
    async attempt(ctx) {
      const { login, options } = await ctx.solicited();
      const xml = `<!DOCTYPE samlp:Response [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>${ctx.acme.idp.responseXml(options).replace(VICTIM, '&xxe;')}`;
      return { response: await ctx.finish(xml), relayState: login.relayState, reason: /DOCTYPE/ };
    },
  },
  {
    name: 'an entity expansion bomb',
    noAssertion: true,
    async attempt() {
      const bomb =
        '<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]><samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol">&lol2;</samlp:Response>';
      return { response: base64(bomb), relayState: undefined, reason: /DOCTYPE/ };
    },
  },
  {
    name: 'multiple root elements',
    async attempt(ctx) {
      const { login, options } = await ctx.solicited();
      const xml = ctx.acme.idp.responseXml(options);
      return { response: await ctx.finish(`${xml}${xml}`), relayState: login.relayState, reason: /well-formed/ };
    },
  },
  {
    name: 'two assertions, both validly signed',
    async attempt(ctx) {
      const { login, options } = await ctx.solicited({ signResponse: false });
      const one = ctx.acme.idp.responseXml(options);
      const assertion = /<saml:Assertion[\s\S]*<\/saml:Assertion>/.exec(
        ctx.acme.idp.responseXml(ctx.acme.options(ATTACKER, { inResponseTo: login.id, signResponse: false })),
      )![0];
      const xml = one.replace('</samlp:Response>', `${assertion}</samlp:Response>`);
      return { response: await ctx.finish(xml), relayState: login.relayState, reason: /exactly one Assertion/ };
    },
  },
  {
    name: 'the wrong NameID format',
    async attempt(ctx) {
      const { login, options } = await ctx.solicited({ nameIdFormat: 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent' });
      return { response: await ctx.respond(options), relayState: login.relayState, reason: /NameID format/ };
    },
  },
  {
    name: 'a response for another tenant posted to this tenant’s ACS',
    async attempt(ctx) {
      const otherLogin = await ctx.other.startLogin();
      const forOther = await ctx.respond(ctx.other.options(VICTIM, { inResponseTo: otherLogin.id }), ctx.other.idp);
      return { response: forOther, relayState: otherLogin.relayState, reason: /Destination/ };
    },
  },
  {
    name: 'a response signed by another tenant’s provider, addressed to this tenant',
    async attempt(ctx) {
      const { login, options } = await ctx.solicited({ keys: ctx.other.idp.keys, issuer: ctx.other.idp.entityId });
      return { response: await ctx.respond(options, ctx.other.idp), relayState: login.relayState, reason: /signature|issuer/i };
    },
  },
  {
    name: 'the wrong Issuer, correctly signed',
    async attempt(ctx) {
      const { login, options } = await ctx.solicited({ issuer: 'https://impostor.example/metadata' });
      return {
        response: await ctx.respond(options),
        relayState: login.relayState,
        reason: /Issuer .* is not this tenant's identity provider/,
      };
    },
  },
  {
    name: 'a signature that references another element than the assertion',
    async attempt(ctx) {
      const { login, options } = await ctx.solicited({ signAssertion: false, signResponse: false });
      const xml = ctx.acme.idp.responseXml(options);
      const signer = new SignedXml({ privateKey: ctx.acme.idp.keys.privateKeyPem, publicCert: ctx.acme.idp.keys.certificatePem });
      signer.signatureAlgorithm = 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256';
      signer.canonicalizationAlgorithm = 'http://www.w3.org/2001/10/xml-exc-c14n#';
      signer.addReference({
        xpath: "//*[local-name(.)='Conditions']",
        transforms: ['http://www.w3.org/2001/10/xml-exc-c14n#'],
        digestAlgorithm: 'http://www.w3.org/2001/04/xmlenc#sha256',
      });
      signer.computeSignature(xml, {
        location: { reference: "//*[local-name(.)='Assertion']/*[local-name(.)='Issuer']", action: 'after' },
      });
      return {
        response: await ctx.finish(signer.getSignedXml()),
        relayState: login.relayState,
        reason: /does not reference the Assertion/,
      };
    },
  },
  {
    name: 'an unsigned Response for a tenant that wants signed responses (the assertion alone is signed)',
    async attempt(ctx, t) {
      const { server } = ctx.acme;
      const strict = `${ctx.prefix}strict`;
      await createTenant(server, strict);
      await server.api.put(`/api/v1/admin/tenants/${strict}/identity-provider`, {
        token: await adminToken(server),
        body: { protocol: 'saml', saml: ctx.acme.idp.settings({ signedResponses: true }), allowIdpInitiated: true },
        expect: 200,
      });
      const acsUrl = `${server.baseUrl}/auth/saml/${strict}/callback`;
      const spEntityId = `${server.baseUrl}/saml/metadata/${strict}`;
      const options = { acsUrl, spEntityId, nameId: VICTIM };
      const context = ctx.encryption ? await hostileEncryptionFor(ctx, strict) : ctx;
      const signed = await ctx.acme.post(await context.respond(options), undefined, strict);
      t.equal(signed.status, 302, 'control: both signatures present');
      return {
        response: await context.respond({ ...options, signResponse: false }),
        relayState: undefined,
        reason: /Response must carry exactly one signature/,
        tenantId: strict,
      };
    },
  },
  {
    name: 'not base64 at all',
    noAssertion: true,
    async attempt() {
      return { response: '<samlp:Response/>', relayState: undefined, reason: /not base64/ };
    },
  },
];

/** `respond` encrypting to another tenant's SP encryption certificate (a tenant's keys are its own). */
async function hostileEncryptionFor(ctx: HostileContext, tenantId: string): Promise<Pick<HostileContext, 'respond'>> {
  const encryption = { certificatePem: await spEncryptionCertificate({ server: ctx.acme.server, tenantId }) };
  return { respond: (options, idp = ctx.acme.idp) => idp.encryptedResponse(options, encryption) };
}
