/**
 * Keeps a SAML provider's settings in step with its metadata URL (issue 46, item 5), so that a
 * provider's certificate rotation needs no administrator: each provider configured by URL whose last
 * success is older than the refresh age (SAML_METADATA_REFRESH_S) has its metadata read again.
 * - Changed (a rotated certificate, a moved sign-on URL): the settings are replaced as the admin's
 *   PUT replaces them (./provider-write.ts), so `identity_provider.updated` carries the earlier
 *   values. Every certificate the metadata lists is kept: during a rotation that is the current one
 *   and the next, and sign-ins signed by either keep working.
 * - Unchanged: only the time of the success is stored.
 * - Failed (no answer, an HTTP error, metadata that does not parse, an address the outbound policy
 *   refuses): the settings are kept and the reason and time stored, shown in the admin API.
 * Each provider is refreshed in a transaction of its own that holds its row (FOR UPDATE SKIP LOCKED),
 * fetch included, so several instances running the job read each URL once. The timer is
 * ./metadata-refresh-job.ts.
 */
import { isDeepStrictEqual } from 'node:util';
import type { SecretBox } from '../../auth/secret-box.ts';
import type { Database } from '../../db/database.ts';
import { inTransaction } from '../../db/transaction.ts';
import { AppError } from '../../errors.ts';
import type { PolicedFetch } from '../../http/outbound/policed-fetch.ts';
import type { Transaction } from 'kysely';
import type { DB } from '../../../generated/db/types.ts';
import { toIdentityProvider, type IdentityProviderRow } from './identity-providers.repository.ts';
import { claimDueProvider, lockTenantNoWait, recordRefreshOutcome, type DueQuery } from './metadata-refresh.repository.ts';
import { fetchMetadata, fieldsOfMetadata } from './metadata-settings.ts';
import type { SamlSettings } from './provider-settings.ts';
import { replaceIdentityProvider } from './provider-write.ts';

export interface RefreshOutcome {
  tenantId: string;
  /** `yielded`: an administrator was writing the provider; nothing was recorded, the next run tries again. */
  result: 'updated' | 'unchanged' | 'failed' | 'yielded';
  /** Why it failed, as stored. */
  error?: string;
  /** The error itself when it was not one a provider causes (a defect, the database): for the log. */
  unexpected?: unknown;
}

export class SamlMetadataRefresh {
  constructor(
    private readonly db: Database,
    private readonly secrets: SecretBox,
    private readonly options: {
      /** The outbound policy's client for identity providers (./provider-fetch.ts). */
      fetch: PolicedFetch;
      allowInsecureIdp: boolean;
      /** BASE_URL: the service provider URLs of the events' representation. */
      baseUrl: string;
    },
  ) {}

  /** Refreshes every provider due, one at a time; what happened to each. */
  async refreshDue(due: Omit<DueQuery, 'skip'>): Promise<RefreshOutcome[]> {
    const outcomes: RefreshOutcome[] = [];
    for (;;) {
      const skip = outcomes.map((o) => o.tenantId);
      const outcome = await inTransaction(this.db, async (trx) => {
        const row = await claimDueProvider(trx, { ...due, skip });
        return row ? this.refresh(trx, row) : null;
      });
      if (!outcome) return outcomes;
      outcomes.push(outcome);
    }
  }

  private async refresh(trx: Transaction<DB>, row: IdentityProviderRow): Promise<RefreshOutcome> {
    const tenantId = row.tenant_id;
    const provider = toIdentityProvider(row, this.secrets);
    if (provider.protocol !== 'saml' || !provider.saml.metadataUrl) throw new Error(`claimed ${tenantId}, which has no metadata URL`);
    let settings: SamlSettings;
    try {
      const xml = await fetchMetadata(this.options.fetch, provider.saml.metadataUrl);
      settings = { ...provider.saml, ...fieldsOfMetadata(xml, this.options.allowInsecureIdp) };
    } catch (error) {
      // A provider's failure is said as the PUT's 400 says it; anything else is not the provider's to show.
      const expected = error instanceof AppError;
      const message = expected ? error.message : 'The metadata could not be refreshed (unexpected error)';
      await recordRefreshOutcome(trx, tenantId, message);
      return { tenantId, result: 'failed', error: message, ...(expected ? {} : { unexpected: error }) };
    }
    if (isDeepStrictEqual(settings, provider.saml)) {
      await recordRefreshOutcome(trx, tenantId, null);
      return { tenantId, result: 'unchanged' };
    }
    if (!(await lockTenantNoWait(trx, tenantId))) return { tenantId, result: 'yielded' };
    await replaceIdentityProvider(
      trx,
      this.secrets,
      this.options.baseUrl,
      {
        tenant_id: tenantId,
        protocol: 'saml',
        settings,
        client_secret_enc: null,
        attribute_mapping: row.attribute_mapping,
        role_mapping: row.role_mapping,
      },
      true,
    );
    return { tenantId, result: 'updated' };
  }
}
