/**
 * The checks of a single logout message (a LogoutRequest or LogoutResponse from a tenant's identity
 * provider) that node-saml leaves out, made before it sees the message: node-saml accepts an
 * HTTP-Redirect message without any signature, reads the redirect signature's parameters with a
 * loose pattern, never checks Destination, and checks neither InResponseTo nor the status of a
 * posted LogoutResponse. Here: no DOCTYPE; one root of the expected kind; Issuer the provider's
 * entity id; Destination this tenant's single logout URL; IssueInstant within five minutes;
 * NotOnOrAfter not past; a LogoutResponse's InResponseTo and Success status; on the redirect binding
 * a SHA-256 or stronger signature over the query, verified here with the provider's certificates;
 * on the POST binding an enveloped SHA-256 or stronger signature of the root (verified by node-saml).
 */
import { createPublicKey, verify } from 'node:crypto';
import { inflateRawSync } from 'node:zlib';
import { DOMParser, type Document, type Element } from '@xmldom/xmldom';
import { AppError } from '../../errors.ts';

const PROTOCOL = 'urn:oasis:names:tc:SAML:2.0:protocol';
const ASSERTION = 'urn:oasis:names:tc:SAML:2.0:assertion';
const DS = 'http://www.w3.org/2000/09/xmldsig#';
const SUCCESS = 'urn:oasis:names:tc:SAML:2.0:status:Success';
/** The query signature algorithms accepted (SAML bindings 3.4.4.1), and the hash each verifies with. */
const REDIRECT_ALGORITHMS: Record<string, string> = {
  'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256': 'sha256',
  'http://www.w3.org/2001/04/xmldsig-more#rsa-sha384': 'sha384',
  'http://www.w3.org/2001/04/xmldsig-more#rsa-sha512': 'sha512',
};
const STRONG_SIGNATURES = new Set(Object.keys(REDIRECT_ALGORITHMS));
const STRONG_DIGESTS = new Set([
  'http://www.w3.org/2001/04/xmlenc#sha256',
  'http://www.w3.org/2001/04/xmldsig-more#sha384',
  'http://www.w3.org/2001/04/xmlenc#sha512',
]);
/** A LogoutRequest issued longer ago than this is refused; its id is remembered for as long. */
export const MAX_LOGOUT_MESSAGE_AGE_MS = 5 * 60_000;
/** Far more than any logout message (a NameID, a SessionIndex, a signature). */
const MAX_LOGOUT_MESSAGE_BYTES = 64 * 1024;

/** A logout message that fails a check: the request is bad (400), nothing is ended. */
export class SamlLogoutRejected extends AppError {
  constructor(reason: string) {
    super('VALIDATION', `SAML single logout refused: ${reason}`, 'SAML_LOGOUT_REJECTED');
    this.name = 'SamlLogoutRejected';
  }
}

export type LogoutBinding = 'redirect' | 'post';
export type LogoutMessageKind = 'LogoutRequest' | 'LogoutResponse';

export interface LogoutExpectations {
  /** This tenant's SingleLogoutService URL: the Destination. */
  sloUrl: string;
  idpEntityId: string;
  /** The provider's signing certificates (PEM), current first. */
  certificates: readonly string[];
  now: Date;
  clockSkewMs: number;
}

export interface LogoutMessageFacts {
  kind: LogoutMessageKind;
  id: string;
  issueInstant: Date;
  /** LogoutResponse: the LogoutRequest it answers. */
  inResponseTo: string | null;
  /** The message as node-saml takes it: the parameter's value, unchanged. */
  encoded: string;
}

/** The message of a redirect binding query or a posted form, and which one it is. */
export function logoutMessageOf(fields: { SAMLRequest?: unknown; SAMLResponse?: unknown }): { kind: LogoutMessageKind; encoded: string } {
  const request = typeof fields.SAMLRequest === 'string' && fields.SAMLRequest ? fields.SAMLRequest : null;
  const response = typeof fields.SAMLResponse === 'string' && fields.SAMLResponse ? fields.SAMLResponse : null;
  if (request && response) throw new SamlLogoutRejected('a message carries either SAMLRequest or SAMLResponse, not both');
  if (!request && !response) throw new SamlLogoutRejected('neither SAMLRequest nor SAMLResponse is present');
  return request ? { kind: 'LogoutRequest', encoded: request } : { kind: 'LogoutResponse', encoded: response! };
}

/**
 * Verifies the HTTP-Redirect binding's query signature (SAML bindings 3.4.4.1): over
 * `SAMLRequest|SAMLResponse=…&RelayState=…&SigAlg=…` exactly as they appear URL-encoded in
 * `rawQuery`, by one of the provider's certificates. An unsigned message is refused.
 */
export function checkRedirectSignature(rawQuery: string, kind: LogoutMessageKind, certificates: readonly string[]): void {
  const raw = new Map<string, string>();
  for (const pair of rawQuery.split('&')) {
    if (!pair) continue;
    const at = pair.indexOf('=');
    const name = decodeURIComponent(at < 0 ? pair : pair.slice(0, at));
    if (raw.has(name)) throw new SamlLogoutRejected(`the query names ${name} twice`);
    raw.set(name, at < 0 ? '' : pair.slice(at + 1));
  }
  const signature = raw.get('Signature');
  const sigAlg = raw.get('SigAlg');
  if (!signature || !sigAlg) throw new SamlLogoutRejected('the message is not signed (no Signature and SigAlg in the query)');
  const algorithm = decodeURIComponent(sigAlg.replace(/\+/g, ' '));
  const hash = REDIRECT_ALGORITHMS[algorithm];
  if (!hash) throw new SamlLogoutRejected(`signature algorithm ${algorithm} is not accepted (RSA-SHA256 or stronger required)`);
  const parameter = kind === 'LogoutRequest' ? 'SAMLRequest' : 'SAMLResponse';
  const signed = [parameter, 'RelayState', 'SigAlg']
    .filter((name) => raw.has(name))
    .map((name) => `${name}=${raw.get(name)}`)
    .join('&');
  const bytes = Buffer.from(decodeURIComponent(signature.replace(/\+/g, ' ')), 'base64');
  const valid = certificates.some((certificate) => {
    try {
      return verify(hash, Buffer.from(signed), createPublicKey(certificate), bytes);
    } catch {
      return false;
    }
  });
  if (!valid) throw new SamlLogoutRejected('the query signature does not verify with the provider’s certificates');
}

/** The checks of the message itself; `binding` says how it was encoded (deflated or not) and signed. */
export function checkLogoutMessage(
  message: { kind: LogoutMessageKind; encoded: string },
  binding: LogoutBinding,
  expected: LogoutExpectations,
): LogoutMessageFacts {
  const xml = decode(message.encoded, binding);
  if (/<!DOCTYPE|<!ENTITY/i.test(xml)) throw new SamlLogoutRejected('a DOCTYPE or ENTITY declaration is not accepted');
  const root = parse(xml).documentElement;
  if (!root || root.namespaceURI !== PROTOCOL || root.localName !== message.kind) {
    throw new SamlLogoutRejected(`the message is not a ${message.kind}`);
  }
  const id = root.getAttribute('ID');
  if (!id) throw new SamlLogoutRejected(`the ${message.kind} has no ID`);

  const issuers = children(root, ASSERTION, 'Issuer');
  const issuer = issuers.length === 1 ? (issuers[0]!.textContent ?? '').trim() : null;
  if (issuer !== expected.idpEntityId) throw new SamlLogoutRejected(`the Issuer is not the provider's entity id (${expected.idpEntityId})`);
  const destination = root.getAttribute('Destination');
  if (destination !== expected.sloUrl)
    throw new SamlLogoutRejected(`the Destination is not this tenant's single logout URL (${expected.sloUrl})`);

  const now = expected.now.getTime();
  const issueInstant = Date.parse(root.getAttribute('IssueInstant') ?? '');
  if (Number.isNaN(issueInstant)) throw new SamlLogoutRejected(`the ${message.kind} has no IssueInstant`);
  if (issueInstant > now + expected.clockSkewMs) throw new SamlLogoutRejected(`the ${message.kind} is issued in the future`);
  if (issueInstant < now - MAX_LOGOUT_MESSAGE_AGE_MS - expected.clockSkewMs) {
    throw new SamlLogoutRejected(`the ${message.kind} was issued more than five minutes ago`);
  }
  const notOnOrAfter = Date.parse(root.getAttribute('NotOnOrAfter') ?? '');
  if (!Number.isNaN(notOnOrAfter) && now - expected.clockSkewMs >= notOnOrAfter) {
    throw new SamlLogoutRejected(`the ${message.kind} has expired (NotOnOrAfter is past)`);
  }

  let inResponseTo: string | null = null;
  if (message.kind === 'LogoutRequest') {
    if (children(root, ASSERTION, 'NameID').length !== 1) throw new SamlLogoutRejected('the LogoutRequest must name exactly one NameID');
  } else {
    inResponseTo = root.getAttribute('InResponseTo') || null;
    if (!inResponseTo) throw new SamlLogoutRejected('the LogoutResponse has no InResponseTo');
    const status = children(root, PROTOCOL, 'Status')[0];
    const code = status ? children(status, PROTOCOL, 'StatusCode')[0]?.getAttribute('Value') : undefined;
    if (code !== SUCCESS) throw new SamlLogoutRejected(`the provider did not log out (status ${code ?? 'missing'})`);
  }

  if (binding === 'post') checkEnvelopedSignature(root, id, message.kind);
  return { kind: message.kind, id, issueInstant: new Date(issueInstant), inResponseTo, encoded: message.encoded };
}

function decode(encoded: string, binding: LogoutBinding): string {
  const bytes = Buffer.from(encoded, 'base64');
  let xml: Buffer;
  try {
    xml = binding === 'redirect' ? inflateRawSync(bytes, { maxOutputLength: MAX_LOGOUT_MESSAGE_BYTES }) : bytes;
  } catch {
    throw new SamlLogoutRejected('the message is not deflated base64 (HTTP-Redirect binding)');
  }
  if (xml.length > MAX_LOGOUT_MESSAGE_BYTES) throw new SamlLogoutRejected('the message is larger than 64 KiB');
  return xml.toString('utf8');
}

function parse(xml: string): Document {
  try {
    return new DOMParser({
      onError: (level, message) => {
        if (level !== 'warning') throw new Error(message);
      },
    }).parseFromString(xml, 'text/xml');
  } catch (error) {
    throw new SamlLogoutRejected(`the message is not well-formed XML (${(error as Error).message.split('\n')[0]})`);
  }
}

function children(parent: Element, namespace: string, localName: string): Element[] {
  return Array.from(parent.childNodes).filter(
    (node): node is Element =>
      node.nodeType === 1 && (node as Element).namespaceURI === namespace && (node as Element).localName === localName,
  );
}

/** The POST binding: one signature, a child of the root, referencing the root, with strong algorithms. */
function checkEnvelopedSignature(root: Element, id: string, kind: LogoutMessageKind): void {
  const signatures = children(root, DS, 'Signature');
  if (signatures.length !== 1)
    throw new SamlLogoutRejected(`the ${kind} must carry exactly one signature of its own, found ${signatures.length}`);
  const references = Array.from(signatures[0]!.getElementsByTagNameNS(DS, 'Reference'));
  if (references.length !== 1 || references[0]!.getAttribute('URI') !== `#${id}`) {
    throw new SamlLogoutRejected(`the ${kind}'s signature does not reference the ${kind} itself`);
  }
  for (const method of Array.from(root.getElementsByTagNameNS(DS, 'SignatureMethod'))) {
    const algorithm = method.getAttribute('Algorithm') ?? '';
    if (!STRONG_SIGNATURES.has(algorithm))
      throw new SamlLogoutRejected(`signature algorithm ${algorithm} is not accepted (SHA-256 or stronger required)`);
  }
  for (const method of Array.from(root.getElementsByTagNameNS(DS, 'DigestMethod'))) {
    const algorithm = method.getAttribute('Algorithm') ?? '';
    if (!STRONG_DIGESTS.has(algorithm))
      throw new SamlLogoutRejected(`digest algorithm ${algorithm} is not accepted (SHA-256 or stronger required)`);
  }
}
