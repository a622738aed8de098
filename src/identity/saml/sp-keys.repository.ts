/** Rows of `saml_sp_keys` (migration 0025): the service provider's key pairs per tenant. */
import { sql } from 'kysely';
import type { NewSamlSpKeysRow, SamlSpKeysRow } from '../../../generated/db/types.ts';
import type { Executor } from '../../db/transaction.ts';

export type SpKeyRow = SamlSpKeysRow;
export type SpKeyUse = 'signing' | 'encryption';

/** The tenant's keys still published (no `retires_at`, or one still ahead), newest first. */
export function publishedKeys(db: Executor, tenantId: string): Promise<SpKeyRow[]> {
  return db
    .selectFrom('saml_sp_keys')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where((eb) => eb.or([eb('retires_at', 'is', null), eb('retires_at', '>', sql<Date>`now()`)]))
    .orderBy('generation', 'desc')
    .execute();
}

/** The newest generation the tenant has, 0 for none. */
export async function latestGeneration(db: Executor, tenantId: string): Promise<number> {
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
export async function insertKeys(db: Executor, rows: NewSamlSpKeysRow[]): Promise<void> {
  await db
    .insertInto('saml_sp_keys')
    .values(rows)
    .onConflict((oc) => oc.columns(['tenant_id', 'use', 'generation']).doNothing())
    .execute();
}

/** Starts the grace period of every key older than `generation` that has none yet. */
export async function retireBefore(db: Executor, tenantId: string, generation: number, graceS: number): Promise<void> {
  await db
    .updateTable('saml_sp_keys')
    .set({ retires_at: sql<Date>`now() + make_interval(secs => ${graceS})` })
    .where('tenant_id', '=', tenantId)
    .where('generation', '<', generation)
    .where('retires_at', 'is', null)
    .execute();
}
