/** Signing certificates as administrators paste them (PEM, or the bare base64 of metadata) made uniform. */
import { X509Certificate } from 'node:crypto';
import { validationFailed, type FieldPath } from '../../errors.ts';

/** The PEM of a certificate given as PEM or as bare base64 DER; a 400 naming `field` when it is neither. */
export function normalizeCertificate(value: string, field: FieldPath): string {
  const body = value
    .replace(/-----(BEGIN|END) CERTIFICATE-----/g, '')
    .replace(/\s+/g, '')
    .trim();
  const pem = `-----BEGIN CERTIFICATE-----\n${body.replace(/(.{64})/g, '$1\n').replace(/\n$/, '')}\n-----END CERTIFICATE-----\n`;
  try {
    new X509Certificate(pem);
  } catch {
    throw validationFailed([{ field, message: 'is not an X.509 certificate (PEM or base64 DER)' }]);
  }
  return pem;
}
