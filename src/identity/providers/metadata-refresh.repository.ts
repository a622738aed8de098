/** The rows of the SAML metadata refresh (./metadata-refresh.ts): which provider is due, and how its refresh went. */
import { sql } from 'kysely';
import type { Executor } from '../../db/transaction.ts';
import type { IdentityProviderRow } from './identity-providers.repository.ts';

export interface DueQuery {
  /** A provider is due once its metadata URL last answered longer ago than this. */
  maxAgeS: number;
  /** …and its last attempt (a failure) is older than this: a failing URL is not read at every tick. */
  retryAfterS: number;
  /** Tenants this run has tried already: each provider once per run, however short `retryAfterS`. */
  skip: readonly string[];
}

const olderThan = (column: 'metadata_fetched_at' | 'metadata_attempted_at', seconds: number) =>
  sql<boolean>`(${sql.ref(column)} is null or ${sql.ref(column)} < now() - make_interval(secs => ${seconds}))`;

/**
 * One SAML provider configured by URL whose refresh is due, locked until the caller's transaction
 * ends; undefined when none is. SKIP LOCKED: a provider another instance is refreshing is left to
 * it, and once it commits, the conditions (read again on the row's new version) no longer hold, so
 * the metadata is read once however many instances run the job. The stalest first.
 */
export function claimDueProvider(trx: Executor, query: DueQuery): Promise<IdentityProviderRow | undefined> {
  return trx
    .selectFrom('identity_providers')
    .selectAll()
    .where('protocol', '=', 'saml')
    .where(sql<boolean>`settings->>'metadataUrl' is not null`)
    .where(olderThan('metadata_fetched_at', query.maxAgeS))
    .where(olderThan('metadata_attempted_at', query.retryAfterS))
    .$if(query.skip.length > 0, (q) => q.where('tenant_id', 'not in', query.skip))
    .orderBy(sql`metadata_fetched_at asc nulls first`)
    .limit(1)
    .forUpdate()
    .skipLocked()
    .executeTakeFirst();
}

/**
 * Locks the tenant row as every write of its provider does, without waiting: an administrator's
 * write holds it and then waits for the provider row this refresh holds, so waiting here would
 * deadlock. False: the administrator is replacing the settings; this refresh gives way.
 */
export async function lockTenantNoWait(trx: Executor, tenantId: string): Promise<boolean> {
  const row = await trx.selectFrom('tenants').select('id').where('id', '=', tenantId).forUpdate().skipLocked().executeTakeFirst();
  return row !== undefined;
}

/** Records a refresh that changed nothing (`error` null: the metadata is as stored) or failed (`error`: why). */
export async function recordRefreshOutcome(trx: Executor, tenantId: string, error: string | null): Promise<void> {
  await trx
    .updateTable('identity_providers')
    .set({
      metadata_attempted_at: sql<Date>`now()`,
      metadata_error: error,
      ...(error === null ? { metadata_fetched_at: sql<Date>`now()` } : {}),
    })
    .where('tenant_id', '=', tenantId)
    .execute();
}
