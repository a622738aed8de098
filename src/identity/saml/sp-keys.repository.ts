/**
 * `saml_sp_keys` (migration 0025), the service provider's key pairs of a tenant (issue 46, items 1 and 3): one for signing (the
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
import { sql } from 'kysely';
import type { NewSamlSpKeysRow, SamlSpKeysRow } from '../../../generated/db/types.ts';
import type { SecretBox } from '../../auth/secret-box.ts';
import { inTransaction, type Executor } from '../../db/transaction.ts';
import type { Database } from '../../db/database.ts';
import { requireTenant } from '../tenants/tenants.repository.ts';
import { newSpKeyPair, type SpKeyUse } from './sp-key-pairs.ts';

type SpKeyRow = SamlSpKeysRow;

/** How long the keys a rotation replaced stay published and usable. */
const ROTATION_GRACE_S = 7 * 24 * 3600;

const context = (keyId: string) => `saml-sp-key:${keyId}`;

export interface SpKeyPair {
  id: string;
  use: SpKeyUse;
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

const pairOf = (row: SpKeyRow): SpKeyPair => ({
  id: row.id,
  use: row.use as SpKeyUse,
  generation: row.generation,
  certificate: row.certificate_pem,
  createdAt: row.created_at,
  retiresAt: row.retires_at,
});

/**
 * The tenant's published keys with their private keys opened, made first when it has none: what
 * the SAML sign-on signs and publishes with, reached in one hop as the provider's settings are.
 */
export async function requireSpKeys(db: Database, secrets: SecretBox, tenantId: string): Promise<TenantSpKeys> {
  let rows = await publishedKeys(db, tenantId);
  if (!rows.some((r) => r.use === 'signing') || !rows.some((r) => r.use === 'encryption')) {
    await addSpKeyGeneration(db, secrets, tenantId, false);
    rows = await publishedKeys(db, tenantId);
  }
  const signing = rows.filter((r) => r.use === 'signing');
  const encryption = rows.filter((r) => r.use === 'encryption');
  return {
    signing: signing.map(pairOf),
    encryption: encryption.map(pairOf),
    signingKey: secrets.open(signing[0]!.private_key_sealed, context(signing[0]!.id)),
    decryptionKeys: encryption.map((r) => secrets.open(r.private_key_sealed, context(r.id))),
  };
}

/**
 * Writes the next generation of keys. `retire`: the older generations start their grace period
 * (a rotation); without it (the first keys, or a use missing) nothing older is touched.
 */
export async function addSpKeyGeneration(db: Database, secrets: SecretBox, tenantId: string, retire: boolean): Promise<void> {
  // RSA key generation takes tens of milliseconds: done before the transaction, off the event loop.
  const [signing, encryption] = await Promise.all([newSpKeyPair(tenantId, 'signing'), newSpKeyPair(tenantId, 'encryption')]);
  await inTransaction(db, async (trx) => {
    // The tenant's row locked: rotations of one tenant take turns, so each gets its own generation;
    // first keys made by two instances at once are made once (the second finds them here).
    await requireTenant(trx, tenantId, true);
    if (!retire) {
      const rows = await publishedKeys(trx, tenantId);
      if (rows.some((r) => r.use === 'signing') && rows.some((r) => r.use === 'encryption')) return;
    }
    const generation = (await latestGeneration(trx, tenantId)) + 1;
    await insertKeys(
      trx,
      [signing, encryption].map((pair) => ({
        id: pair.id,
        tenant_id: tenantId,
        use: pair.use,
        generation,
        certificate_pem: pair.certificate,
        private_key_sealed: secrets.seal(pair.privateKey, context(pair.id)),
      })),
    );
    if (retire) await retireBefore(trx, tenantId, generation, ROTATION_GRACE_S);
  });
}

/** The tenant's keys still published (no `retires_at`, or one still ahead), newest first. */
function publishedKeys(db: Executor, tenantId: string): Promise<SpKeyRow[]> {
  return db
    .selectFrom('saml_sp_keys')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where((eb) => eb.or([eb('retires_at', 'is', null), eb('retires_at', '>', sql<Date>`now()`)]))
    .orderBy('generation', 'desc')
    .execute();
}

/** The newest generation the tenant has, 0 for none. */
async function latestGeneration(db: Executor, tenantId: string): Promise<number> {
  const row = await db
    .selectFrom('saml_sp_keys')
    .select((eb) => eb.fn.max('generation').as('latest'))
    .where('tenant_id', '=', tenantId)
    .executeTakeFirst();
  return Number(row?.latest ?? 0);
}

/**
 * Inserts the keys of one generation; a generation another instance wrote first wins (its keys are
 * the ones published), so this one's are dropped, not an error.
 */
async function insertKeys(db: Executor, rows: NewSamlSpKeysRow[]): Promise<void> {
  await db
    .insertInto('saml_sp_keys')
    .values(rows)
    .onConflict((oc) => oc.columns(['tenant_id', 'use', 'generation']).doNothing())
    .execute();
}

/** Starts the grace period of every key older than `generation` that has none yet. */
async function retireBefore(db: Executor, tenantId: string, generation: number, graceS: number): Promise<void> {
  await db
    .updateTable('saml_sp_keys')
    .set({ retires_at: sql<Date>`now() + make_interval(secs => ${graceS})` })
    .where('tenant_id', '=', tenantId)
    .where('generation', '<', generation)
    .where('retires_at', 'is', null)
    .execute();
}
