/**
 * A new key pair of the service provider with its certificate: RSA-2048 from node:crypto, the
 * certificate self-signed by `selfsigned` (SAML trusts the metadata, not a CA: the certificate only
 * wraps the public key). Tens of milliseconds of CPU, off the event loop.
 */
import { generateKeyPair, randomUUID, X509Certificate } from 'node:crypto';
import { promisify } from 'node:util';
import { generate as selfSigned } from 'selfsigned';

/** Nobody checks an SP certificate's dates in SAML, but some providers refuse an expired one. */
const CERTIFICATE_DAYS = 20 * 365;
const newKeyPair = promisify(generateKeyPair);

export type SpKeyUse = 'signing' | 'encryption';

export async function newSpKeyPair(
  tenantId: string,
  use: SpKeyUse,
): Promise<{ id: string; use: SpKeyUse; certificate: string; privateKey: string }> {
  const { privateKey, publicKey } = await newKeyPair('rsa', { modulusLength: 2048 });
  const pem = {
    privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
    publicKey: publicKey.export({ type: 'spki', format: 'pem' }) as string,
  };
  const notBeforeDate = new Date(Date.now() - 60_000);
  const certificate = await selfSigned([{ name: 'commonName', value: `SAML SP ${tenantId} ${use}` }], {
    keyPair: pem,
    algorithm: 'sha256',
    notBeforeDate,
    notAfterDate: new Date(notBeforeDate.getTime() + CERTIFICATE_DAYS * 86_400_000),
  });
  // node:crypto's PEM (LF line ends, as the metadata and the admin API show it), not the library's CRLF.
  return { id: randomUUID(), use, certificate: new X509Certificate(certificate.cert).toString(), privateKey: pem.privateKey };
}
