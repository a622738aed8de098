/**
 * A self-signed X.509 certificate for a key pair of the service provider, written with node:crypto
 * alone. SAML metadata carries keys as certificates, but nobody checks their chain, name or dates
 * (SAML trusts the metadata, not a CA): the certificate only wraps the public key. node:crypto reads
 * certificates but does not write them, and the libraries that do (selfsigned, @peculiar/x509) are
 * development dependencies here; the DER below is the minimum RFC 5280 asks for, about 60 lines.
 */
import { createPublicKey, randomBytes, sign, type KeyObject } from 'node:crypto';

const tlv = (tag: number, ...content: Buffer[]): Buffer => {
  const body = Buffer.concat(content);
  const n = body.length;
  const length =
    n < 0x80 ? Buffer.from([n]) : n < 0x100 ? Buffer.from([0x81, n]) : n < 0x10000 ? Buffer.from([0x82, n >> 8, n & 0xff]) : null;
  if (!length) throw new Error('DER value too long');
  return Buffer.concat([Buffer.from([tag]), length, body]);
};
const sequence = (...content: Buffer[]) => tlv(0x30, ...content);
const set = (...content: Buffer[]) => tlv(0x31, ...content);
const oid = (dotted: string): Buffer => {
  const [a, b, ...rest] = dotted.split('.').map(Number);
  const bytes = [a! * 40 + b!];
  for (const arc of rest) {
    const base128 = [arc & 0x7f];
    for (let v = arc >> 7; v > 0; v >>= 7) base128.unshift((v & 0x7f) | 0x80);
    bytes.push(...base128);
  }
  return tlv(0x06, Buffer.from(bytes));
};
const NULL = Buffer.from([0x05, 0x00]);
/** RFC 5280: UTCTime (two-digit year) through 2049, GeneralizedTime from 2050. */
const time = (date: Date) => {
  const digits = `${date.toISOString().slice(0, 19).replace(/[-:T]/g, '')}Z`;
  return date.getUTCFullYear() < 2050 ? tlv(0x17, Buffer.from(digits.slice(2))) : tlv(0x18, Buffer.from(digits));
};

const SHA256_WITH_RSA = sequence(oid('1.2.840.113549.1.1.11'), NULL);

/** A PEM certificate for `privateKey`'s public key, named `commonName`, valid from now for `days`. */
export function selfSignedCertificate(privateKey: KeyObject, commonName: string, days: number): string {
  const name = sequence(set(sequence(oid('2.5.4.3'), tlv(0x0c, Buffer.from(commonName, 'utf8')))));
  // A positive serial: 16 random bytes with the top bit cleared.
  const serial = randomBytes(16);
  serial[0] = serial[0]! & 0x7f;
  const notBefore = new Date(Date.now() - 60_000);
  const notAfter = new Date(notBefore.getTime() + days * 86_400_000);
  const tbs = sequence(
    tlv(0xa0, tlv(0x02, Buffer.from([2]))), // version 3
    tlv(0x02, serial),
    SHA256_WITH_RSA,
    name,
    sequence(time(notBefore), time(notAfter)),
    name,
    createPublicKey(privateKey).export({ type: 'spki', format: 'der' }),
  );
  const signature = sign('sha256', tbs, privateKey);
  const der = sequence(tbs, SHA256_WITH_RSA, tlv(0x03, Buffer.from([0]), signature));
  const lines = der.toString('base64').match(/.{1,64}/g)!;
  return `-----BEGIN CERTIFICATE-----\n${lines.join('\n')}\n-----END CERTIFICATE-----\n`;
}
