/**
 * A SAML 2.0 identity provider for tests: keys made at test time (never checked in), metadata, and
 * signed Responses whose every field a test may override, signed with xml-crypto (the XML-DSig
 * library node-saml itself verifies with) the way real providers sign: an enveloped, exclusive-c14n
 * signature of the Assertion placed after its Issuer, then one of the Response. Hostile tests start
 * from these and break one thing each (test/helpers/saml-xsw.ts for signature wrapping).
 *
 * Encrypted assertions are made as real providers make them: the Assertion is signed, then encrypted
 * with xml-encryption (the library node-saml decrypts with) to the service provider's encryption
 * certificate, wrapped in saml:EncryptedAssertion (xenc:EncryptedData, its KeyInfo holding the
 * xenc:EncryptedKey), and only then is the Response signed.
 */
import { createPublicKey, randomBytes, sign as signBytes, verify } from 'node:crypto';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { generate } from 'selfsigned';
import { SignedXml } from 'xml-crypto';
import { encrypt, type EncryptionAlgorithm, type KeyEncryptionAlgorithm } from 'xml-encryption';

export interface SamlKeys {
  certificatePem: string;
  privateKeyPem: string;
  /** Base64 DER of the certificate, as metadata carries it. */
  certificateBase64: string;
}

/**
 * Keys made once per process and name: a 2048-bit RSA key costs about a quarter of a CPU-second, and
 * the same names come back in a file's tests and in the files that share a test process (each test
 * on data of its own). Distinct names are distinct keys, so a test that needs a key nobody else holds
 * (an attacker's, a provider's next one) names it.
 */
const madeKeys = new Map<string, Promise<SamlKeys>>();

export function makeSamlKeys(commonName: string): Promise<SamlKeys> {
  let keys = madeKeys.get(commonName);
  if (!keys) {
    keys = generateSamlKeys(commonName);
    madeKeys.set(commonName, keys);
    keys.catch(() => madeKeys.delete(commonName));
  }
  return keys;
}

async function generateSamlKeys(commonName: string): Promise<SamlKeys> {
  const pems = await generate([{ name: 'commonName', value: commonName }], { keySize: 2048, algorithm: 'sha256' });
  return Object.freeze({
    certificatePem: pems.cert,
    privateKeyPem: pems.private,
    certificateBase64: pems.cert.replace(/-----(BEGIN|END) CERTIFICATE-----|\s+/g, ''),
  });
}

const EMAIL_FORMAT = 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress';
const ALGORITHMS = {
  sha256: { signature: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256', digest: 'http://www.w3.org/2001/04/xmlenc#sha256' },
  sha1: { signature: 'http://www.w3.org/2000/09/xmldsig#rsa-sha1', digest: 'http://www.w3.org/2000/09/xmldsig#sha1' },
};
const TRANSFORMS = ['http://www.w3.org/2000/09/xmldsig#enveloped-signature', 'http://www.w3.org/2001/10/xml-exc-c14n#'];

export interface SamlResponseOptions {
  acsUrl: string;
  spEntityId: string;
  nameId: string;
  nameIdFormat?: string;
  /** Omitted: an unsolicited (provider-initiated) response. */
  inResponseTo?: string;
  attributes?: Record<string, string | string[]>;
  signAssertion?: boolean;
  signResponse?: boolean;
  signatureAlgorithm?: 'sha256' | 'sha1';
  digestAlgorithm?: 'sha256' | 'sha1';
  /** Sign with these keys (their certificate goes into KeyInfo) instead of the provider's current ones. */
  keys?: SamlKeys;
  issuer?: string;
  audience?: string;
  destination?: string;
  recipient?: string;
  assertionId?: string;
  responseId?: string;
  notBefore?: Date;
  notOnOrAfter?: Date;
  /** The bearer SubjectConfirmationData's NotOnOrAfter, when not the same as the Conditions'. */
  confirmationNotOnOrAfter?: Date;
  issueInstant?: Date;
  sessionIndex?: string;
  /** The Response's top-level StatusCode (Success unless given) and a second-level one. */
  statusCode?: string;
  subStatusCode?: string;
}

/** How an IdP encrypts the Assertion: to whose certificate, with which content and key transport algorithms. */
export interface AssertionEncryption {
  /** The service provider's encryption certificate (PEM), as its metadata publishes it. */
  certificatePem: string;
  /** Content encryption; AES-256-GCM unless given. */
  algorithm?: EncryptionAlgorithm;
  /** Key transport; RSA-OAEP unless given. */
  keyTransport?: KeyEncryptionAlgorithm;
}

export const CONTENT_ENCRYPTION = {
  'aes128-gcm': 'http://www.w3.org/2009/xmlenc11#aes128-gcm',
  'aes256-gcm': 'http://www.w3.org/2009/xmlenc11#aes256-gcm',
  'aes128-cbc': 'http://www.w3.org/2001/04/xmlenc#aes128-cbc',
  'aes256-cbc': 'http://www.w3.org/2001/04/xmlenc#aes256-cbc',
} as const satisfies Record<string, EncryptionAlgorithm>;

function encryptXml(content: string, encryption: AssertionEncryption): Promise<string> {
  return new Promise((resolve, reject) =>
    encrypt(
      content,
      {
        rsa_pub: encryption.certificatePem,
        pem: encryption.certificatePem,
        encryptionAlgorithm: encryption.algorithm ?? CONTENT_ENCRYPTION['aes256-gcm'],
        keyEncryptionAlgorithm: encryption.keyTransport ?? 'http://www.w3.org/2001/04/xmlenc#rsa-oaep-mgf1p',
        warnInsecureAlgorithm: false,
      },
      (error, result) => (error ? reject(error) : resolve(result)),
    ),
  );
}

/** A serialized element as the EncryptedAssertion that carries it, encrypted. */
export async function encryptedAssertion(assertionXml: string, encryption: AssertionEncryption): Promise<string> {
  const data = await encryptXml(assertionXml, encryption);
  return `<saml:EncryptedAssertion xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion">${data}</saml:EncryptedAssertion>`;
}

/**
 * Replaces every outermost `<saml:Assertion>…</saml:Assertion>` of a (possibly tampered) response
 * document by its EncryptedAssertion, by text, so that whatever was done to the Assertion ends up
 * inside the encrypted payload and the rest of the document stays byte for byte what it was. A
 * Response signature made before no longer verifies.
 */
export async function encryptAssertions(responseXml: string, encryption: AssertionEncryption): Promise<string> {
  const tags = /<saml:Assertion[\s>]|<\/saml:Assertion>/g;
  const spans: [number, number][] = [];
  let depth = 0;
  let start = 0;
  for (let match = tags.exec(responseXml); match; match = tags.exec(responseXml)) {
    if (match[0].startsWith('</')) {
      depth -= 1;
      if (depth === 0) spans.push([start, match.index + match[0].length]);
    } else {
      if (depth === 0) start = match.index;
      depth += 1;
    }
  }
  let out = '';
  let at = 0;
  for (const [from, to] of spans) {
    out += responseXml.slice(at, from) + (await encryptedAssertion(responseXml.slice(from, to), encryption));
    at = to;
  }
  return out + responseXml.slice(at);
}

/** A LogoutRequest the provider sends (provider-initiated single logout); every field a test may override. */
export interface LogoutRequestOptions {
  /** The SP's single logout URL. */
  destination: string;
  nameId: string;
  sessionIndex?: string;
  issuer?: string;
  id?: string;
  issueInstant?: Date;
  notOnOrAfter?: Date;
}

/** A LogoutResponse the provider answers an SP's LogoutRequest with. */
export interface LogoutResponseOptions {
  destination: string;
  inResponseTo: string;
  issuer?: string;
  statusCode?: string;
  issueInstant?: Date;
}

/** How a logout message is sent: which keys sign it (none: unsigned) and with which algorithm. */
export interface LogoutSigning {
  sign?: boolean;
  keys?: SamlKeys;
  algorithm?: 'sha256' | 'sha1';
}

const xml = (value: string) => value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
export const samlId = () => `_${randomBytes(16).toString('hex')}`;

function sign(document: string, target: 'Assertion' | 'Response', keys: SamlKeys, options: SamlResponseOptions): string {
  const signer = new SignedXml({ privateKey: keys.privateKeyPem, publicCert: keys.certificatePem });
  signer.signatureAlgorithm = ALGORITHMS[options.signatureAlgorithm ?? 'sha256'].signature;
  signer.canonicalizationAlgorithm = 'http://www.w3.org/2001/10/xml-exc-c14n#';
  const element = target === 'Assertion' ? "//*[local-name(.)='Assertion']" : "/*[local-name(.)='Response']";
  signer.addReference({ xpath: element, transforms: TRANSFORMS, digestAlgorithm: ALGORITHMS[options.digestAlgorithm ?? 'sha256'].digest });
  signer.computeSignature(document, { location: { reference: `${element}/*[local-name(.)='Issuer']`, action: 'after' } });
  return signer.getSignedXml();
}

/** An enveloped signature of a logout message's root, after its Issuer (the POST binding). */
function signRoot(document: string, root: 'LogoutRequest' | 'LogoutResponse', keys: SamlKeys, algorithm: 'sha256' | 'sha1'): string {
  const signer = new SignedXml({ privateKey: keys.privateKeyPem, publicCert: keys.certificatePem });
  signer.signatureAlgorithm = ALGORITHMS[algorithm].signature;
  signer.canonicalizationAlgorithm = 'http://www.w3.org/2001/10/xml-exc-c14n#';
  const element = `/*[local-name(.)='${root}']`;
  signer.addReference({ xpath: element, transforms: TRANSFORMS, digestAlgorithm: ALGORITHMS[algorithm].digest });
  signer.computeSignature(document, { location: { reference: `${element}/*[local-name(.)='Issuer']`, action: 'after' } });
  return signer.getSignedXml();
}

export class TestSamlIdp {
  readonly entityId: string;
  readonly ssoUrl: string;
  readonly sloUrl: string | undefined;
  keys: SamlKeys;
  backupKeys: SamlKeys | undefined;

  constructor(options: { entityId: string; ssoUrl: string; sloUrl?: string; keys: SamlKeys; backupKeys?: SamlKeys }) {
    this.entityId = options.entityId;
    this.ssoUrl = options.ssoUrl;
    this.sloUrl = options.sloUrl;
    this.keys = options.keys;
    this.backupKeys = options.backupKeys;
  }

  static async create(name = 'idp'): Promise<TestSamlIdp> {
    const [keys, backupKeys] = await Promise.all([makeSamlKeys(`${name} signing`), makeSamlKeys(`${name} signing (next)`)]);
    return new TestSamlIdp({
      entityId: `https://${name}.example/metadata`,
      ssoUrl: `https://${name}.example/sso`,
      sloUrl: `https://${name}.example/slo`,
      keys,
      backupKeys,
    });
  }

  metadataXml(): string {
    const keyDescriptor = (keys: SamlKeys) =>
      `<md:KeyDescriptor use="signing"><ds:KeyInfo><ds:X509Data><ds:X509Certificate>${keys.certificateBase64}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>`;
    return [
      `<?xml version="1.0"?>`,
      `<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" xmlns:ds="http://www.w3.org/2000/09/xmldsig#" entityID="${xml(this.entityId)}">`,
      `<md:IDPSSODescriptor WantAuthnRequestsSigned="false" protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">`,
      keyDescriptor(this.keys),
      this.backupKeys ? keyDescriptor(this.backupKeys) : '',
      this.sloUrl
        ? `<md:SingleLogoutService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="${xml(this.sloUrl)}"/>`
        : '',
      `<md:NameIDFormat>${EMAIL_FORMAT}</md:NameIDFormat>`,
      `<md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="${xml(this.ssoUrl)}"/>`,
      `<md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="${xml(this.ssoUrl)}"/>`,
      `</md:IDPSSODescriptor></md:EntityDescriptor>`,
    ].join('');
  }

  /** The settings of `PUT .../identity-provider` field by field. */
  settings(overrides: Record<string, unknown> = {}): Record<string, unknown> {
    return {
      entityId: this.entityId,
      ssoUrl: this.ssoUrl,
      sloUrl: this.sloUrl ?? null,
      certificate: this.keys.certificatePem,
      ...(this.backupKeys ? { certificateBackup: this.backupKeys.certificatePem } : {}),
      nameIdFormat: EMAIL_FORMAT,
      ...overrides,
    };
  }

  /** The Response with its signed Assertion encrypted as `encryption` says, the Response signed after (unless `signResponse: false`). */
  async encryptedResponseXml(options: SamlResponseOptions, encryption: AssertionEncryption): Promise<string> {
    const response = await encryptAssertions(this.responseXml({ ...options, signResponse: false }), encryption);
    return options.signResponse === false ? response : sign(response, 'Response', options.keys ?? this.keys, options);
  }

  async encryptedResponse(options: SamlResponseOptions, encryption: AssertionEncryption): Promise<string> {
    return Buffer.from(await this.encryptedResponseXml(options, encryption)).toString('base64');
  }

  responseXml(options: SamlResponseOptions): string {
    const now = new Date();
    const issueInstant = (options.issueInstant ?? now).toISOString();
    const notBefore = (options.notBefore ?? new Date(now.getTime() - 60_000)).toISOString();
    const notOnOrAfter = (options.notOnOrAfter ?? new Date(now.getTime() + 5 * 60_000)).toISOString();
    const issuer = xml(options.issuer ?? this.entityId);
    const inResponseTo = options.inResponseTo ? ` InResponseTo="${xml(options.inResponseTo)}"` : '';
    const attributes = Object.entries(options.attributes ?? {})
      .map(
        ([name, value]) =>
          `<saml:Attribute Name="${xml(name)}">${(Array.isArray(value) ? value : [value]).map((v) => `<saml:AttributeValue>${xml(v)}</saml:AttributeValue>`).join('')}</saml:Attribute>`,
      )
      .join('');
    const assertion = [
      `<saml:Assertion xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="${options.assertionId ?? samlId()}" Version="2.0" IssueInstant="${issueInstant}">`,
      `<saml:Issuer>${issuer}</saml:Issuer>`,
      `<saml:Subject><saml:NameID Format="${xml(options.nameIdFormat ?? EMAIL_FORMAT)}">${xml(options.nameId)}</saml:NameID>`,
      `<saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer"><saml:SubjectConfirmationData NotOnOrAfter="${options.confirmationNotOnOrAfter?.toISOString() ?? notOnOrAfter}" Recipient="${xml(options.recipient ?? options.acsUrl)}"${inResponseTo}/></saml:SubjectConfirmation></saml:Subject>`,
      `<saml:Conditions NotBefore="${notBefore}" NotOnOrAfter="${notOnOrAfter}"><saml:AudienceRestriction><saml:Audience>${xml(options.audience ?? options.spEntityId)}</saml:Audience></saml:AudienceRestriction></saml:Conditions>`,
      `<saml:AuthnStatement AuthnInstant="${issueInstant}" SessionIndex="${xml(options.sessionIndex ?? samlId())}"><saml:AuthnContext><saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement>`,
      attributes ? `<saml:AttributeStatement>${attributes}</saml:AttributeStatement>` : '',
      `</saml:Assertion>`,
    ].join('');
    const keys = options.keys ?? this.keys;
    const signedAssertion = options.signAssertion === false ? assertion : sign(assertion, 'Assertion', keys, options);
    const response = [
      `<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="${options.responseId ?? samlId()}" Version="2.0" IssueInstant="${issueInstant}" Destination="${xml(options.destination ?? options.acsUrl)}"${inResponseTo}>`,
      `<saml:Issuer>${issuer}</saml:Issuer>`,
      `<samlp:Status><samlp:StatusCode Value="${xml(options.statusCode ?? 'urn:oasis:names:tc:SAML:2.0:status:Success')}"${
        options.subStatusCode ? `><samlp:StatusCode Value="${xml(options.subStatusCode)}"/></samlp:StatusCode>` : '/>'
      }</samlp:Status>`,
      signedAssertion,
      `</samlp:Response>`,
    ].join('');
    return options.signResponse === false ? response : sign(response, 'Response', keys, options);
  }

  logoutRequestXml(options: LogoutRequestOptions): string {
    const now = new Date();
    const notOnOrAfter = options.notOnOrAfter ?? new Date(now.getTime() + 5 * 60_000);
    return [
      `<samlp:LogoutRequest xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="${options.id ?? samlId()}" Version="2.0" IssueInstant="${(options.issueInstant ?? now).toISOString()}" NotOnOrAfter="${notOnOrAfter.toISOString()}" Destination="${xml(options.destination)}">`,
      `<saml:Issuer>${xml(options.issuer ?? this.entityId)}</saml:Issuer>`,
      `<saml:NameID Format="${EMAIL_FORMAT}">${xml(options.nameId)}</saml:NameID>`,
      options.sessionIndex ? `<samlp:SessionIndex>${xml(options.sessionIndex)}</samlp:SessionIndex>` : '',
      `</samlp:LogoutRequest>`,
    ].join('');
  }

  logoutResponseXml(options: LogoutResponseOptions): string {
    return [
      `<samlp:LogoutResponse xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="${samlId()}" Version="2.0" IssueInstant="${(options.issueInstant ?? new Date()).toISOString()}" Destination="${xml(options.destination)}" InResponseTo="${xml(options.inResponseTo)}">`,
      `<saml:Issuer>${xml(options.issuer ?? this.entityId)}</saml:Issuer>`,
      `<samlp:Status><samlp:StatusCode Value="${xml(options.statusCode ?? 'urn:oasis:names:tc:SAML:2.0:status:Success')}"/></samlp:Status>`,
      `</samlp:LogoutResponse>`,
    ].join('');
  }

  /**
   * A logout message on the HTTP-Redirect binding: `url` with the deflated message, RelayState and,
   * unless `sign: false`, SigAlg and the Signature over `SAMLRequest|SAMLResponse=…&RelayState=…&SigAlg=…`.
   */
  redirectUrl(url: string, message: string, relayState?: string, signing: LogoutSigning = {}): string {
    const parameter = /^<samlp:LogoutRequest/.test(message) ? 'SAMLRequest' : 'SAMLResponse';
    const algorithm = signing.algorithm ?? 'sha256';
    let query = `${parameter}=${encodeURIComponent(deflateRawSync(Buffer.from(message)).toString('base64'))}`;
    if (relayState !== undefined) query += `&RelayState=${encodeURIComponent(relayState)}`;
    if (signing.sign !== false) {
      query += `&SigAlg=${encodeURIComponent(ALGORITHMS[algorithm].signature)}`;
      const signature = signBytes(algorithm, Buffer.from(query), (signing.keys ?? this.keys).privateKeyPem).toString('base64');
      query += `&Signature=${encodeURIComponent(signature)}`;
    }
    return `${url}?${query}`;
  }

  /** A logout message for the HTTP-POST binding: base64 of the message with an enveloped signature of its root (unless `sign: false`). */
  postMessage(message: string, signing: LogoutSigning = {}): string {
    const root = /^<samlp:LogoutRequest/.test(message) ? 'LogoutRequest' : 'LogoutResponse';
    const signed = signing.sign === false ? message : signRoot(message, root, signing.keys ?? this.keys, signing.algorithm ?? 'sha256');
    return Buffer.from(signed).toString('base64');
  }

  response(options: SamlResponseOptions): string {
    return Buffer.from(this.responseXml(options)).toString('base64');
  }

  /**
   * Whether an HTTP-Redirect binding URL carries an RSA-SHA256 signature that `certificatePem`'s key
   * verifies, as a provider checks it (SAML bindings 3.4.4.1): over `SAMLRequest=…&RelayState=…&SigAlg=…`,
   * each value exactly as it appears URL-encoded in the query, then Signature base64-decoded.
   */
  static verifyRedirectSignature(location: string, certificatePem: string): boolean {
    const raw = new Map(
      new URL(location).search
        .slice(1)
        .split('&')
        .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)] as const),
    );
    if (decodeURIComponent(raw.get('SigAlg') ?? '') !== 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256') return false;
    const signed = ['SAMLRequest', 'SAMLResponse', 'RelayState', 'SigAlg']
      .filter((name) => raw.has(name))
      .map((name) => `${name}=${raw.get(name)}`)
      .join('&');
    const signature = Buffer.from(decodeURIComponent(raw.get('Signature') ?? ''), 'base64');
    return verify('sha256', Buffer.from(signed), createPublicKey(certificatePem), signature);
  }

  /** The message (SAMLRequest or SAMLResponse) of an HTTP-Redirect binding URL, inflated, and its RelayState. */
  static redirectMessage(location: string): { xml: string; relayState: string | null } {
    const url = new URL(location);
    const encoded = url.searchParams.get('SAMLRequest') ?? url.searchParams.get('SAMLResponse') ?? '';
    return { xml: inflateRawSync(Buffer.from(encoded, 'base64')).toString('utf8'), relayState: url.searchParams.get('RelayState') };
  }

  /** The signing certificates (PEM) an SP publishes in its metadata, as a provider reads them. */
  static spSigningCertificates(metadataXml: string): string[] {
    return [...metadataXml.matchAll(/<KeyDescriptor use="signing">([\s\S]*?)<\/KeyDescriptor>/g)].map((descriptor) => {
      const base64 = /<(?:ds:)?X509Certificate>([^<]+)</.exec(descriptor[1]!)![1]!.replace(/\s+/g, '');
      return `-----BEGIN CERTIFICATE-----\n${base64.match(/.{1,64}/g)!.join('\n')}\n-----END CERTIFICATE-----\n`;
    });
  }

  /** The AuthnRequest of an HTTP-Redirect binding URL (the Location our login endpoint answers). */
  static parseRedirect(location: string): {
    id: string;
    acsUrl: string | null;
    issuer: string | null;
    relayState: string | null;
    xml: string;
  } {
    const url = new URL(location);
    const request = inflateRawSync(Buffer.from(url.searchParams.get('SAMLRequest') ?? '', 'base64')).toString('utf8');
    return {
      id: /\sID="([^"]+)"/.exec(request)?.[1] ?? '',
      acsUrl: /AssertionConsumerServiceURL="([^"]+)"/.exec(request)?.[1] ?? null,
      issuer: /<(?:saml:)?Issuer[^>]*>([^<]+)</.exec(request)?.[1] ?? null,
      relayState: url.searchParams.get('RelayState'),
      xml: request,
    };
  }
}

/**
 * Posts a SAMLResponse (and RelayState) to an assertion consumer URL, as a browser's auto-submitted
 * form does, with the browser's sign-in cookie when it has one.
 */
export function postToAcs(acsUrl: string, samlResponse: string, relayState?: string, signInCookie?: string | null): Promise<Response> {
  const body = new URLSearchParams({ SAMLResponse: samlResponse, ...(relayState !== undefined ? { RelayState: relayState } : {}) });
  return fetch(acsUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(signInCookie ? { cookie: `sf_signin=${signInCookie}` } : {}) },
    body,
    redirect: 'manual',
  });
}
