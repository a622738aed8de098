/**
 * The service provider's key pairs of a tenant (issue 46, items 1 and 3): one for signing (the
 * AuthnRequests and logout requests it sends) and one for encryption (what its provider encrypts
 * assertions to), published in the tenant's SP metadata.
 *
 * - Created on first need (metadata, a sign-in), so tenants that never use SAML hold no keys;
 *   two instances creating them at once insert one generation (the unique key), both then read it.
 * - Private keys are sealed at rest (src/auth/secret-box.ts) bound to their row's id.
 * - Rotation writes a new generation and gives the older keys a grace period (`retires_at`): during
 *   it the metadata publishes old and new (a provider that has not re-read it yet still trusts the
 *   signature it knows of, and may still encrypt to the old key); requests are signed with the newest.
 */
import { generateKeyPair, randomUUID, X509Certificate } from 'node:crypto';
import { promisify } from 'node:util';
import type { SecretBox } from '../../auth/secret-box.ts';
import type { Database } from '../../db/database.ts';
import { inTransaction } from '../../db/transaction.ts';
import { requireTenant } from '../tenants/tenants.repository.ts';
import { generate as selfSigned } from 'selfsigned';
import * as repo from './sp-keys.repository.ts';

/** How long the keys a rotation replaced stay published and usable. */
const ROTATION_GRACE_S = 7 * 24 * 3600;
/** Nobody checks an SP certificate's dates in SAML, but some providers refuse an expired one. */
const CERTIFICATE_DAYS = 20 * 365;
const newKeyPair = promisify(generateKeyPair);

const context = (keyId: string) => `saml-sp-key:${keyId}`;

export interface SpKeyPair {
  id: string;
  use: repo.SpKeyUse;
  generation: number;
  certificate: string;
  createdAt: Date;
  retiresAt: Date | null;
}

/** The published keys of a tenant, newest first, with the newest of each use's private key. */
export interface TenantSpKeys {
  signing: SpKeyPair[];
  encryption: SpKeyPair[];
  /** PEM (PKCS#8) of the newest signing key: what requests are signed with. */
  signingKey: string;
  /** PEM (PKCS#8) of every published encryption key, newest first: what assertions may be encrypted to. */
  decryptionKeys: string[];
}

const pairOf = (row: repo.SpKeyRow): SpKeyPair => ({
  id: row.id,
  use: row.use as repo.SpKeyUse,
  generation: row.generation,
  certificate: row.certificate_pem,
  createdAt: row.created_at,
  retiresAt: row.retires_at,
});

export class SamlSpKeys {
  constructor(
    private readonly db: Database,
    private readonly secrets: SecretBox,
  ) {}

  /** The tenant's published keys, created when it has none. */
  async forTenant(tenantId: string): Promise<TenantSpKeys> {
    let rows = await repo.publishedKeys(this.db, tenantId);
    if (!rows.some((r) => r.use === 'signing') || !rows.some((r) => r.use === 'encryption')) {
      await this.addGeneration(tenantId, false);
      rows = await repo.publishedKeys(this.db, tenantId);
    }
    const signing = rows.filter((r) => r.use === 'signing');
    const encryption = rows.filter((r) => r.use === 'encryption');
    return {
      signing: signing.map(pairOf),
      encryption: encryption.map(pairOf),
      signingKey: this.secrets.open(signing[0]!.private_key_sealed, context(signing[0]!.id)),
      decryptionKeys: encryption.map((r) => this.secrets.open(r.private_key_sealed, context(r.id))),
    };
  }

  /** The published keys of the tenant (the admin's list), created when it has none. */
  async list(tenantId: string): Promise<SpKeyPair[]> {
    await requireTenant(this.db, tenantId);
    const keys = await this.forTenant(tenantId);
    return [...keys.signing, ...keys.encryption];
  }

  /** A new signing and encryption key; the older ones stay published for ROTATION_GRACE_S. */
  async rotate(tenantId: string): Promise<SpKeyPair[]> {
    await requireTenant(this.db, tenantId);
    await this.addGeneration(tenantId, true);
    return this.list(tenantId);
  }

  /**
   * Writes the next generation of keys. `retire`: the older generations start their grace period
   * (a rotation); without it (the first keys, or a use missing) nothing older is touched.
   */
  private async addGeneration(tenantId: string, retire: boolean): Promise<void> {
    // RSA key generation takes tens of milliseconds: done before the transaction, off the event loop.
    const [signing, encryption] = await Promise.all([this.newPair(tenantId, 'signing'), this.newPair(tenantId, 'encryption')]);
    await inTransaction(this.db, async (trx) => {
      // The tenant's row locked: rotations of one tenant take turns, so each gets its own generation;
      // first keys made by two instances at once are made once (the second finds them here).
      await requireTenant(trx, tenantId, true);
      if (!retire) {
        const rows = await repo.publishedKeys(trx, tenantId);
        if (rows.some((r) => r.use === 'signing') && rows.some((r) => r.use === 'encryption')) return;
      }
      const generation = (await repo.latestGeneration(trx, tenantId)) + 1;
      await repo.insertKeys(
        trx,
        [signing, encryption].map((pair) => ({
          id: pair.id,
          tenant_id: tenantId,
          use: pair.use,
          generation,
          certificate_pem: pair.certificate,
          private_key_sealed: this.secrets.seal(pair.privateKey, context(pair.id)),
        })),
      );
      if (retire) await repo.retireBefore(trx, tenantId, generation, ROTATION_GRACE_S);
    });
  }

  private async newPair(tenantId: string, use: repo.SpKeyUse) {
    const { privateKey, publicKey } = await newKeyPair('rsa', { modulusLength: 2048 });
    const pem = {
      privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
      publicKey: publicKey.export({ type: 'spki', format: 'pem' }) as string,
    };
    // The certificate only wraps the public key (SAML trusts the metadata, not a CA): self-signed.
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
}
