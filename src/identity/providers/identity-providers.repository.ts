import { sql } from 'kysely';
import type { IdentityProvidersRow, NewIdentityProvidersRow } from '../../../generated/db/types.ts';
import type { Executor } from '../../db/transaction.ts';

export type IdentityProviderRow = IdentityProvidersRow;

export function findIdentityProvider(db: Executor, tenantId: string): Promise<IdentityProviderRow | undefined> {
  return db.selectFrom('identity_providers').selectAll().where('tenant_id', '=', tenantId).executeTakeFirst();
}

export function upsertIdentityProvider(
  db: Executor,
  // `updated_at` is the database clock's, set on every write.
  row: Omit<NewIdentityProvidersRow, 'updated_at'>,
): Promise<IdentityProviderRow> {
  const values = {
    ...row,
    settings: JSON.stringify(row.settings),
    attribute_mapping: JSON.stringify(row.attribute_mapping),
    role_mapping: JSON.stringify(row.role_mapping),
  };
  // A tenant's one provider is replaced whole: every column written but its key.
  const { tenant_id: _key, ...replaced } = values;
  return db
    .insertInto('identity_providers')
    .values(values)
    .onConflict((oc) => oc.column('tenant_id').doUpdateSet({ ...replaced, updated_at: sql<Date>`now()` }))
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function deleteIdentityProvider(db: Executor, tenantId: string): Promise<boolean> {
  const result = await db.deleteFrom('identity_providers').where('tenant_id', '=', tenantId).executeTakeFirst();
  return result.numDeletedRows > 0n;
}
