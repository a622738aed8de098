/**
 * A SAML provider's settings from its metadata: read from the metadata URL under the outbound policy
 * and parsed (./saml-metadata.ts). Shared by the admin's PUT (`metadataXml`, `metadataUrl`) and the
 * refresh of a metadata URL (./metadata-refresh.ts), so both store the same fields the same way.
 */
import { validationFailed } from '../../errors.ts';
import type { PolicedFetch } from '../../http/outbound/policed-fetch.ts';
import { normalizeCertificate } from './certificates.ts';
import { checkProviderUrl } from './identity-provider-urls.ts';
import { providerFailure } from './provider-fetch.ts';
import type { SamlSettings } from './provider-settings.ts';
import { parseIdpMetadata } from './saml-metadata.ts';

/** The fields metadata decides; the others (signedResponses, allowIdpInitiated, metadataUrl) are the tenant's. */
type MetadataFields = Pick<SamlSettings, 'entityId' | 'ssoUrl' | 'sloUrl' | 'certificates' | 'nameIdFormat'>;

/** The fields of metadata `xml`; a VALIDATION error (field `metadataXml`) says what is unusable. */
export function fieldsOfMetadata(xml: string, allowInsecureIdp: boolean): MetadataFields {
  const parsed = parseIdpMetadata(xml);
  return {
    entityId: parsed.entityId,
    ssoUrl: checkProviderUrl(parsed.ssoUrl, ['metadataXml'], allowInsecureIdp),
    sloUrl: parsed.sloUrl ? checkProviderUrl(parsed.sloUrl, ['metadataXml'], allowInsecureIdp) : null,
    // Every signing certificate, in the metadata's order: during a rotation the provider lists the
    // next one beside the current one, and a response signed by either must verify.
    certificates: parsed.certificates.map((c) => normalizeCertificate(c, ['metadataXml'])),
    nameIdFormat: parsed.nameIdFormat,
  };
}

/**
 * The metadata document at `url`, read under the outbound policy. A refusal names the kind of
 * failure, or the status of a public server's answer, and never a byte of the answer: a metadata URL
 * is not a way to read what some server returns.
 */
export async function fetchMetadata(fetch: PolicedFetch, url: string): Promise<string> {
  const failed = (why: string) => validationFailed([{ field: ['metadataUrl'], message: why }], `The metadata URL cannot be read: ${why}`);
  const unanswered = (error: unknown) => failed(providerFailure(error) ?? 'the provider did not answer');
  let response: Response;
  try {
    response = await fetch(url, { headers: { accept: 'application/samlmetadata+xml, application/xml, text/xml' } });
  } catch (error) {
    throw unanswered(error);
  }
  if (response.status >= 300 && response.status < 400) throw failed('it answered with a redirect, which is not followed');
  if (!response.ok) throw failed(`it answered HTTP ${response.status}`);
  // The body is read under the same limits (size, time): a failure there is the provider's too.
  return response.text().catch((error: unknown) => {
    throw unanswered(error);
  });
}
