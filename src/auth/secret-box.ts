/**
 * Encryption of secrets kept in the database (identity provider client secrets, webhook signing
 * secrets): AES-256-GCM under a key derived from SECRETS_KEY, so a copy of the database alone does
 * not reveal them. The owner (a tenant id, an endpoint id) is bound in as associated data: a
 * ciphertext moved to another row does not decrypt.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

export class SecretBox {
  private readonly key: Buffer;

  constructor(secretsKey: string) {
    // SECRETS_KEY is any string of at least 32 characters: SHA-256 makes it the 32-byte key AES needs.
    this.key = createHash('sha256').update(`schemaforge secrets v1\0${secretsKey}`).digest();
  }

  seal(plaintext: string, context: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(context));
    const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return ['v1', iv, cipher.getAuthTag(), data].map((p) => (typeof p === 'string' ? p : p.toString('base64url'))).join('.');
  }

  /** The plaintext; throws when the value was not sealed under this key and context. */
  open(sealed: string, context: string): string {
    const [version, iv, tag, data] = sealed.split('.');
    if (version !== 'v1' || !iv || !tag || data === undefined) throw new Error('not a sealed secret');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(context));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
  }
}
