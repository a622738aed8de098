/**
 * The checks of the SAML validation checklist that node-saml does not make, run on the decoded
 * response before node-saml verifies its signatures (decision 92). The document must have exactly one
 * Response as its root and exactly one Assertion, as its child: every signature-wrapping variant
 * (XSW1–XSW8) needs a second Response or Assertion somewhere, so with one of each the element read
 * here is the element node-saml verifies. Then:
 *
 * - no DOCTYPE (XXE, entity expansion), no comments (the NameID comment truncation of CVE-2017-11427),
 *   no processing instructions;
 * - `Destination` of the Response, and `Recipient` of the bearer SubjectConfirmationData, equal the
 *   assertion consumer URL; the SubjectConfirmationData's InResponseTo, when present, equals the
 *   Response's;
 * - the Assertion carries its own signature, referencing its ID (and the Response one referencing
 *   its ID when the tenant wants signed responses);
 * - every SignatureMethod and DigestMethod is SHA-256 or stronger (SHA-1 refused);
 * - the NameID has the configured format;
 * - the Assertion's Issuer, and the Response's when it has one, is the tenant's provider;
 * - an EncryptedAssertion (decision 210) is decrypted here, with each of the tenant's published
 *   encryption keys in turn (a rotation's grace period has two): content AES-GCM or AES-CBC, the key
 *   transported with RSA-OAEP (RSA 1.5, the Bleichenbacher-prone one, is refused before any key is
 *   used); the plaintext must be exactly one Assertion element with no DOCTYPE, comment or processing
 *   instruction, and it takes the EncryptedAssertion's place for every check here, so "exactly one
 *   Assertion" and all the rows below hold of what was encrypted. node-saml is then handed the
 *   response as it came, with the one key that decrypted it, and decrypts the same bytes again;
 * - a tenant that requires encryption refuses a plain Assertion;
 * - the Response's StatusCode is Success: a provider that says no (Responder, AuthnFailed) may still
 *   send a validly signed assertion, which must not sign anybody in;
 * - the bearer SubjectConfirmationData's NotBefore and NotOnOrAfter hold now (with the clock skew):
 *   node-saml checks them only for responses answering a request, and an unsolicited one must not
 *   be replayable past its window;
 * - elements nest at most MAX_XML_DEPTH deep, checked without recursion before anything walks the
 *   tree (xmldom's own searches recurse: 30,000 nested elements overflowed the stack).
 */
import { DOMParser, XMLSerializer, type Document, type Element, type Node } from '@xmldom/xmldom';
import { AppError } from '../../errors.ts';

const PROTOCOL = 'urn:oasis:names:tc:SAML:2.0:protocol';
const ASSERTION = 'urn:oasis:names:tc:SAML:2.0:assertion';
const DS = 'http://www.w3.org/2000/09/xmldsig#';
const BEARER = 'urn:oasis:names:tc:SAML:2.0:cm:bearer';
const UNSPECIFIED = 'urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified';
const SUCCESS = 'urn:oasis:names:tc:SAML:2.0:status:Success';
const XENC = 'http://www.w3.org/2001/04/xmlenc#';

/** Content encryption algorithms xml-encryption decrypts that are accepted (no Triple DES). */
const CONTENT_ALGORITHMS = new Set([
  'http://www.w3.org/2009/xmlenc11#aes128-gcm',
  'http://www.w3.org/2009/xmlenc11#aes256-gcm',
  'http://www.w3.org/2001/04/xmlenc#aes128-cbc',
  'http://www.w3.org/2001/04/xmlenc#aes256-cbc',
]);
/** Key transport: RSA-OAEP only; RSA 1.5 (PKCS#1 v1.5) is the padding oracle of Bleichenbacher's attack. */
const KEY_TRANSPORT = 'http://www.w3.org/2001/04/xmlenc#rsa-oaep-mgf1p';

/** A signed SAML response nests about ten levels; anything much deeper is not one. */
const MAX_XML_DEPTH = 64;

const STRONG_SIGNATURES = new Set([
  'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
  'http://www.w3.org/2001/04/xmldsig-more#rsa-sha384',
  'http://www.w3.org/2001/04/xmldsig-more#rsa-sha512',
  'http://www.w3.org/2001/04/xmldsig-more#ecdsa-sha256',
  'http://www.w3.org/2001/04/xmldsig-more#ecdsa-sha384',
  'http://www.w3.org/2001/04/xmldsig-more#ecdsa-sha512',
]);
const STRONG_DIGESTS = new Set([
  'http://www.w3.org/2001/04/xmlenc#sha256',
  'http://www.w3.org/2001/04/xmldsig-more#sha384',
  'http://www.w3.org/2001/04/xmlenc#sha512',
]);

/** Responses are small; anything near this is not a sign-in. */
export const MAX_SAML_RESPONSE_BYTES = 256 * 1024;

/** A refused sign-in: the caller's doing (or an attacker's), never the server's; no session is made. */
export class SamlRejected extends AppError {
  constructor(reason: string) {
    super('UNAUTHENTICATED', `SAML response rejected: ${reason}`, 'SSO_REJECTED');
    this.name = 'SamlRejected';
  }
}

interface SamlExpectations {
  acsUrl: string;
  /** Now, and the clock skew allowed around the assertion's time conditions. */
  now: Date;
  clockSkewMs: number;
  /** The provider's entity id, which the Assertion's Issuer (and the Response's, when present) must be. */
  idpEntityId: string;
  nameIdFormat: string;
  signedResponses: boolean;
  /** Refuse an Assertion that did not come encrypted. */
  requireEncryptedAssertions: boolean;
  /** The private keys (PEM) of the tenant's published encryption certificates, newest first; read only for an EncryptedAssertion. */
  decryptionKeys: () => Promise<readonly string[]>;
}

interface SamlResponseFacts {
  assertionId: string;
  /** The Response's InResponseTo; null for an unsolicited (provider-initiated) response. */
  inResponseTo: string | null;
  /** The latest NotOnOrAfter the assertion names: how long its id must be remembered. */
  notOnOrAfter: Date | null;
  /**
   * The SAMLResponse node-saml is to verify. Without `signedResponses` it is the response minus the
   * Response's own signature: node-saml would verify it anyway (a whole-document parse,
   * canonicalization and RSA check, some 40 % of its work), and nothing relies on it; the Assertion's
   * signature covers the Assertion alone, so removing a sibling leaves it intact.
   */
  forVerification: string;
  /** The key that decrypted the EncryptedAssertion, for node-saml to decrypt it with; null for a plain Assertion. */
  decryptionKey: string | null;
}

function childElements(parent: Element, ns: string, name: string): Element[] {
  const out: Element[] = [];
  for (let node = parent.firstChild; node; node = node.nextSibling) {
    if (node.nodeType === 1 && (node as Element).namespaceURI === ns && (node as Element).localName === name) out.push(node as Element);
  }
  return out;
}

function only(parent: Element, ns: string, name: string, what: string): Element {
  const found = childElements(parent, ns, name);
  if (found.length !== 1) throw new SamlRejected(`expected exactly one ${what}, found ${found.length}`);
  return found[0]!;
}

/**
 * Comments, processing instructions and DOCTYPE nodes anywhere in the document, and nesting deeper
 * than MAX_XML_DEPTH: one walk with an explicit stack, so no document can exhaust the call stack.
 */
function findForbiddenNode(root: Node): string | null {
  const stack: [Node, number][] = [[root, 0]];
  while (stack.length) {
    const [node, depth] = stack.pop()!;
    for (let child = node.firstChild; child; child = child.nextSibling) {
      if (child.nodeType === 8) return 'an XML comment';
      if (child.nodeType === 7) return 'a processing instruction';
      if (child.nodeType === 10) return 'a DOCTYPE';
      if (child.firstChild) {
        if (depth + 1 > MAX_XML_DEPTH) return `elements nested more than ${MAX_XML_DEPTH} deep`;
        stack.push([child, depth + 1]);
      }
    }
  }
  return null;
}

function checkStatus(root: Element): void {
  const status = only(root, PROTOCOL, 'Status', 'Status');
  const code = only(status, PROTOCOL, 'StatusCode', 'StatusCode');
  const value = code.getAttribute('Value') ?? '';
  if (value !== SUCCESS) {
    const detail = childElements(code, PROTOCOL, 'StatusCode')[0]?.getAttribute('Value') ?? '';
    const name = (uri: string) => uri.split(':').at(-1) ?? uri;
    throw new SamlRejected(`the provider answered ${name(value)}${detail ? ` (${name(detail)})` : ''}, not Success`);
  }
}

/** NotBefore and NotOnOrAfter of an element, against now with the skew. */
function checkTimeWindow(element: Element, what: string, now: Date, skewMs: number): void {
  const notBefore = Date.parse(element.getAttribute('NotBefore') ?? '');
  const notOnOrAfter = Date.parse(element.getAttribute('NotOnOrAfter') ?? '');
  if (!Number.isNaN(notBefore) && now.getTime() + skewMs < notBefore) throw new SamlRejected(`the ${what} is not valid yet`);
  if (!Number.isNaN(notOnOrAfter) && now.getTime() - skewMs >= notOnOrAfter) throw new SamlRejected(`the ${what} has expired`);
}

function parse(xml: string, what = 'response'): Document {
  if (/<!DOCTYPE|<!ENTITY/i.test(xml)) throw new SamlRejected(`a DOCTYPE or ENTITY declaration is not accepted (in the ${what})`);
  try {
    return new DOMParser({
      onError: (level, message) => {
        if (level !== 'warning') throw new Error(message);
      },
    }).parseFromString(xml, 'text/xml');
  } catch (error) {
    // The parser's words quote the text; a decrypted payload's are left out (they could be anything).
    const detail = what === 'response' ? ` (${(error as Error).message.split('\n')[0]})` : '';
    throw new SamlRejected(`the ${what} is not well-formed XML${detail}`);
  }
}

function algorithmOf(method: Element | undefined): string {
  return method?.getAttribute('Algorithm') ?? '(none)';
}

/**
 * The EncryptedAssertion's shape and algorithms, checked before any key is used: one EncryptedData
 * with one EncryptionMethod and one CipherValue, one EncryptedKey (in its KeyInfo or beside it)
 * transported with RSA-OAEP. xml-encryption picks the first of each it finds, so more than one is refused.
 */
function checkEncryptedAssertion(encrypted: Element): void {
  const data = childElements(encrypted, XENC, 'EncryptedData');
  if (data.length !== 1) throw new SamlRejected(`the EncryptedAssertion must hold exactly one EncryptedData, found ${data.length}`);
  const content = childElements(data[0]!, XENC, 'EncryptionMethod');
  if (content.length !== 1) throw new SamlRejected('the EncryptedData must name exactly one EncryptionMethod');
  if (!CONTENT_ALGORITHMS.has(algorithmOf(content[0]))) {
    throw new SamlRejected(`content encryption algorithm ${algorithmOf(content[0])} is not accepted (AES-GCM or AES-CBC required)`);
  }
  const cipherValues = childElements(data[0]!, XENC, 'CipherData').flatMap((c) => childElements(c, XENC, 'CipherValue'));
  if (cipherValues.length !== 1) throw new SamlRejected('the EncryptedData must hold exactly one CipherValue');
  const keys = Array.from(encrypted.getElementsByTagNameNS(XENC, 'EncryptedKey'));
  if (keys.length !== 1) throw new SamlRejected(`the EncryptedAssertion must carry exactly one EncryptedKey, found ${keys.length}`);
  const transport = childElements(keys[0]!, XENC, 'EncryptionMethod');
  if (transport.length !== 1 || algorithmOf(transport[0]) !== KEY_TRANSPORT) {
    throw new SamlRejected(`key transport algorithm ${algorithmOf(transport[0])} is not accepted (RSA-OAEP required; RSA 1.5 is refused)`);
  }
}

/**
 * The plaintext of the EncryptedAssertion with the first of `keys` that opens it. The library's
 * errors name key and padding failures; none of their words reach the refusal.
 */
async function decryptAssertion(encrypted: Element, keys: readonly string[]): Promise<{ plaintext: string; key: string }> {
  const { decrypt } = await import('xml-encryption');
  const xml = new XMLSerializer().serializeToString(encrypted);
  for (const key of keys) {
    const plaintext = await new Promise<string | null>((resolve) =>
      decrypt(xml, { key, disallowDecryptionWithInsecureAlgorithm: true, warnInsecureAlgorithm: false }, (error, result) =>
        resolve(error || typeof result !== 'string' ? null : result),
      ),
    );
    if (plaintext !== null) return { plaintext, key };
  }
  throw new SamlRejected("the EncryptedAssertion does not decrypt with this tenant's service provider keys");
}

/** The decrypted payload as an Assertion element of `doc`, after the same XML checks as the response's. */
function decryptedAssertion(plaintext: string, doc: Document): Element {
  const what = 'decrypted assertion';
  const payload = parse(plaintext, what);
  const forbidden = findForbiddenNode(payload);
  if (forbidden) throw new SamlRejected(`the ${what} contains ${forbidden}`);
  const top = Array.from(payload.childNodes).filter((n) => n.nodeType !== 3 || (n.nodeValue ?? '').trim());
  const element = payload.documentElement;
  if (top.length !== 1 || !element || element.namespaceURI !== ASSERTION || element.localName !== 'Assertion') {
    throw new SamlRejected('the EncryptedAssertion must decrypt to exactly one saml:Assertion element');
  }
  return doc.importNode(element, true);
}

function checkSignature(signed: Element, what: string): void {
  const signature = childElements(signed, DS, 'Signature');
  if (signature.length !== 1) throw new SamlRejected(`the ${what} must carry exactly one signature of its own, found ${signature.length}`);
  const references = Array.from(signature[0]!.getElementsByTagNameNS(DS, 'Reference'));
  const id = signed.getAttribute('ID');
  if (!id || references.length !== 1 || references[0]!.getAttribute('URI') !== `#${id}`) {
    throw new SamlRejected(`the ${what}'s signature does not reference the ${what} itself`);
  }
}

function checkAlgorithms(doc: Document): void {
  for (const method of Array.from(doc.getElementsByTagNameNS(DS, 'SignatureMethod'))) {
    const algorithm = method.getAttribute('Algorithm') ?? '';
    if (!STRONG_SIGNATURES.has(algorithm))
      throw new SamlRejected(`signature algorithm ${algorithm} is not accepted (SHA-256 or stronger required)`);
  }
  for (const method of Array.from(doc.getElementsByTagNameNS(DS, 'DigestMethod'))) {
    const algorithm = method.getAttribute('Algorithm') ?? '';
    if (!STRONG_DIGESTS.has(algorithm))
      throw new SamlRejected(`digest algorithm ${algorithm} is not accepted (SHA-256 or stronger required)`);
  }
}

function latest(dates: (string | null)[]): Date | null {
  const times = dates
    .filter((d): d is string => Boolean(d))
    .map((d) => Date.parse(d))
    .filter((t) => !Number.isNaN(t));
  return times.length ? new Date(Math.max(...times)) : null;
}

export async function checkSamlResponse(samlResponse: string, expect: SamlExpectations): Promise<SamlResponseFacts> {
  if (samlResponse.length > MAX_SAML_RESPONSE_BYTES * 1.4) throw new SamlRejected('the response is too large');
  if (!/^[A-Za-z0-9+/=\s]+$/.test(samlResponse)) throw new SamlRejected('SAMLResponse is not base64');
  const doc = parse(Buffer.from(samlResponse, 'base64').toString('utf8'));
  const forbidden = findForbiddenNode(doc);
  if (forbidden) throw new SamlRejected(`the response contains ${forbidden}`);
  const root = doc.documentElement;
  if (!root || root.namespaceURI !== PROTOCOL || root.localName !== 'Response')
    throw new SamlRejected('the root element is not a SAML 2.0 Response');
  if (doc.getElementsByTagNameNS(PROTOCOL, 'Response').length !== 1) throw new SamlRejected('the document holds more than one Response');
  const exactlyOne = 'the document must hold exactly one Assertion (plain or encrypted)';
  const count = (d: Document) =>
    d.getElementsByTagNameNS(ASSERTION, 'Assertion').length + d.getElementsByTagNameNS(ASSERTION, 'EncryptedAssertion').length;
  if (count(doc) !== 1) throw new SamlRejected(exactlyOne);
  const encrypted = childElements(root, ASSERTION, 'EncryptedAssertion')[0];
  let decryptionKey: string | null = null;
  if (encrypted) {
    checkEncryptedAssertion(encrypted);
    const opened = await decryptAssertion(encrypted, await expect.decryptionKeys());
    decryptionKey = opened.key;
    // From here on the checks read the decrypted Assertion where the encrypted one stood.
    root.replaceChild(decryptedAssertion(opened.plaintext, doc), encrypted);
    if (count(doc) !== 1) throw new SamlRejected(exactlyOne);
  } else if (expect.requireEncryptedAssertions) {
    throw new SamlRejected('this tenant accepts encrypted assertions only, and the Assertion is not encrypted');
  }
  const assertion = only(root, ASSERTION, 'Assertion', 'Assertion in the Response');
  checkStatus(root);

  if (root.getAttribute('Destination') !== expect.acsUrl) {
    throw new SamlRejected(`Destination ${JSON.stringify(root.getAttribute('Destination'))} is not this tenant's assertion consumer URL`);
  }
  checkAlgorithms(doc);
  checkSignature(assertion, 'Assertion');
  if (expect.signedResponses) checkSignature(root, 'Response');

  const issuers = [childElements(root, ASSERTION, 'Issuer'), childElements(assertion, ASSERTION, 'Issuer')];
  if (issuers[1]!.length !== 1) throw new SamlRejected('the Assertion must have exactly one Issuer');
  for (const issuer of issuers.flat()) {
    const value = (issuer.textContent ?? '').trim();
    if (value !== expect.idpEntityId) throw new SamlRejected(`Issuer ${JSON.stringify(value)} is not this tenant's identity provider`);
  }

  const assertionId = assertion.getAttribute('ID');
  if (!assertionId) throw new SamlRejected('the Assertion has no ID');
  const subject = only(assertion, ASSERTION, 'Subject', 'Subject');
  const nameId = only(subject, ASSERTION, 'NameID', 'NameID');
  const format = nameId.getAttribute('Format') || UNSPECIFIED;
  if (format !== expect.nameIdFormat) throw new SamlRejected(`NameID format ${format} is not the expected ${expect.nameIdFormat}`);

  const inResponseTo = root.getAttribute('InResponseTo') || null;
  const bearer = childElements(subject, ASSERTION, 'SubjectConfirmation').filter((c) => c.getAttribute('Method') === BEARER);
  if (bearer.length !== 1) throw new SamlRejected('the Subject must have exactly one bearer SubjectConfirmation');
  const data = only(bearer[0]!, ASSERTION, 'SubjectConfirmationData', 'SubjectConfirmationData');
  if (data.getAttribute('Recipient') !== expect.acsUrl) {
    throw new SamlRejected(`Recipient ${JSON.stringify(data.getAttribute('Recipient'))} is not this tenant's assertion consumer URL`);
  }
  const confirmedFor = data.getAttribute('InResponseTo') || null;
  if (confirmedFor !== inResponseTo) throw new SamlRejected('the InResponseTo of the Response and of its SubjectConfirmationData differ');
  checkTimeWindow(data, 'SubjectConfirmationData', expect.now, expect.clockSkewMs);

  const conditions = childElements(assertion, ASSERTION, 'Conditions')[0];
  const responseSignature = childElements(root, DS, 'Signature')[0];
  // node-saml verifies what was sent: the EncryptedAssertion goes back in its place.
  if (encrypted) root.replaceChild(encrypted, assertion);
  let forVerification = samlResponse;
  if (!expect.signedResponses && responseSignature) {
    root.removeChild(responseSignature);
    forVerification = Buffer.from(new XMLSerializer().serializeToString(doc)).toString('base64');
  }
  return {
    assertionId,
    inResponseTo,
    notOnOrAfter: latest([data.getAttribute('NotOnOrAfter'), conditions?.getAttribute('NotOnOrAfter') ?? null]),
    forVerification,
    decryptionKey,
  };
}
