/**
 * The one way a tenant's provider is replaced, shared by the admin's PUT and the metadata refresh
 * (decision 203: no service calls another): the row written whole and `identity_provider.activated`
 * or `.updated` recorded in the same transaction. The caller holds the tenant row's lock.
 */
import type { SecretBox } from '../../auth/secret-box.ts';
import type { Transaction } from 'kysely';
import type { DB } from '../../../generated/db/types.ts';
import * as repo from './identity-providers.repository.ts';
import { recordProviderSet } from './provider-events.ts';
import type { IdentityProvider } from './provider-settings.ts';

export async function replaceIdentityProvider(
  trx: Transaction<DB>,
  secrets: SecretBox,
  baseUrl: string,
  row: repo.ProviderWrite,
  metadataFetched: boolean,
): Promise<IdentityProvider> {
  const before = await repo.readIdentityProvider(trx, secrets, row.tenant_id);
  const after = repo.toIdentityProvider(await repo.upsertIdentityProvider(trx, row, metadataFetched), secrets);
  await recordProviderSet(trx, before, after, baseUrl);
  return after;
}
