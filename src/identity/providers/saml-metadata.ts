/**
 * SAML 2.0 identity provider metadata (an EntityDescriptor, or an EntitiesDescriptor holding one
 * identity provider) read into the fields of a tenant's SAML settings. Every signing certificate is
 * kept: metadata that announces the next certificate ahead of a rotation lists two, and both must
 * verify sign-ins from then on.
 */
import { DOMParser, type Element } from '@xmldom/xmldom';
import { validationFailed } from '../../errors.ts';

const MD = 'urn:oasis:names:tc:SAML:2.0:metadata';
const DS = 'http://www.w3.org/2000/09/xmldsig#';
const REDIRECT = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect';
const POST = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST';
export const EMAIL_NAME_ID_FORMAT = 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress';

interface ParsedIdpMetadata {
  entityId: string;
  ssoUrl: string;
  sloUrl: string | null;
  /** Base64 DER of each signing certificate, in document order. */
  certificates: string[];
  nameIdFormat: string;
}

const invalid = (message: string) => validationFailed([{ field: ['metadataXml'], message }], `The SAML metadata is not usable: ${message}`);

function children(parent: Element, ns: string, name: string): Element[] {
  const out: Element[] = [];
  for (let node = parent.firstChild; node; node = node.nextSibling) {
    if (node.nodeType === 1 && (node as Element).namespaceURI === ns && (node as Element).localName === name) out.push(node as Element);
  }
  return out;
}

function serviceUrl(descriptor: Element, name: string): string | null {
  const services = children(descriptor, MD, name);
  const preferred =
    services.find((s) => s.getAttribute('Binding') === REDIRECT) ?? services.find((s) => s.getAttribute('Binding') === POST);
  return preferred?.getAttribute('Location') || null;
}

export function parseIdpMetadata(xml: string): ParsedIdpMetadata {
  // A DTD can expand entities (billion laughs) or name external ones: metadata never needs one.
  if (/<!DOCTYPE|<!ENTITY/i.test(xml)) throw invalid('a DOCTYPE or ENTITY declaration is not accepted');
  let root: Element | null;
  try {
    root = new DOMParser({
      onError: (level, message) => {
        if (level !== 'warning') throw new Error(message);
      },
    }).parseFromString(xml, 'text/xml').documentElement;
  } catch (error) {
    throw invalid(`not well-formed XML (${(error as Error).message.split('\n')[0]})`);
  }
  if (!root || root.namespaceURI !== MD) throw invalid('the root element is not SAML 2.0 metadata');
  const entities = root.localName === 'EntitiesDescriptor' ? children(root, MD, 'EntityDescriptor') : [root];
  const entity = entities.find((e) => e.localName === 'EntityDescriptor' && children(e, MD, 'IDPSSODescriptor').length);
  if (!entity) throw invalid('no EntityDescriptor with an IDPSSODescriptor');
  const descriptor = children(entity, MD, 'IDPSSODescriptor')[0]!;
  const entityId = entity.getAttribute('entityID');
  if (!entityId) throw invalid('the EntityDescriptor has no entityID');
  const ssoUrl = serviceUrl(descriptor, 'SingleSignOnService');
  if (!ssoUrl) throw invalid('no SingleSignOnService with the HTTP-Redirect or HTTP-POST binding');
  const certificates = children(descriptor, MD, 'KeyDescriptor')
    .filter((k) => (k.getAttribute('use') || 'signing') === 'signing')
    .flatMap((k) => Array.from(k.getElementsByTagNameNS(DS, 'X509Certificate')))
    .map((c) => (c.textContent ?? '').replace(/\s+/g, ''))
    .filter(Boolean);
  if (!certificates.length) throw invalid('no signing certificate (KeyDescriptor use="signing" with an X509Certificate)');
  const formats = children(descriptor, MD, 'NameIDFormat').map((f) => (f.textContent ?? '').trim());
  return {
    entityId,
    ssoUrl,
    sloUrl: serviceUrl(descriptor, 'SingleLogoutService'),
    certificates: [...new Set(certificates)],
    nameIdFormat: formats.includes(EMAIL_NAME_ID_FORMAT) ? EMAIL_NAME_ID_FORMAT : (formats[0] ?? EMAIL_NAME_ID_FORMAT),
  };
}
