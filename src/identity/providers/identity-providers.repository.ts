import { sql } from 'kysely';
import type { IdentityProvidersRow } from '../../../generated/db/types.ts';
import type { Executor } from '../../db/transaction.ts';

export type IdentityProviderRow = IdentityProvidersRow;

export function findIdentityProvider(db: Executor, tenantId: string): Promise<IdentityProviderRow | undefined> {
  return db.selectFrom('identity_providers').selectAll().where('tenant_id', '=', tenantId).executeTakeFirst();
}

export function upsertIdentityProvider(
  db: Executor,
  row: Omit<IdentityProviderRow, 'updated_at' | 'settings' | 'attribute_mapping' | 'role_mapping'> & {
    settings: unknown;
    attribute_mapping: unknown;
    role_mapping: unknown;
  },
): Promise<IdentityProviderRow> {
  const values = {
    ...row,
    settings: JSON.stringify(row.settings),
    attribute_mapping: JSON.stringify(row.attribute_mapping),
    role_mapping: JSON.stringify(row.role_mapping),
  };
  return db
    .insertInto('identity_providers')
    .values(values)
    .onConflict((oc) =>
      oc.column('tenant_id').doUpdateSet({
        protocol: values.protocol,
        settings: values.settings,
        client_secret_enc: values.client_secret_enc,
        attribute_mapping: values.attribute_mapping,
        role_mapping: values.role_mapping,
        updated_at: sql<Date>`now()`,
      }),
    )
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function deleteIdentityProvider(db: Executor, tenantId: string): Promise<boolean> {
  const result = await db.deleteFrom('identity_providers').where('tenant_id', '=', tenantId).executeTakeFirst();
  return result.numDeletedRows > 0n;
}
