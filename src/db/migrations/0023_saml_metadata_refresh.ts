import { sql, type Kysely } from 'kysely';

/**
 * Refresh of a SAML provider's metadata URL (issue 46, item 5), on `identity_providers`:
 * - `metadata_fetched_at`: when the metadata URL last answered usable metadata (what is stored came
 *   from it then, or was confirmed unchanged). The refresh is due when it is older than
 *   SAML_METADATA_REFRESH_S. Named for the fetch, not the refresh, because the PUT that first reads
 *   the URL sets it too.
 * - `metadata_attempted_at`: when the last refresh was tried, successful or not: an instance claims a
 *   provider by setting it, so a failing URL is tried again an hour later, not at every tick.
 * - `metadata_error`: why the last refresh failed, in the words a PUT's 400 would use; null when it
 *   succeeded. The stored settings are kept: a failure never removes a certificate.
 * All three are null for a provider not configured by URL. Providers read from a URL before this
 * migration were fetched when they were last written, so `updated_at` is their last success.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table identity_providers
      add column metadata_fetched_at timestamptz,
      add column metadata_attempted_at timestamptz,
      add column metadata_error text`.execute(db);
  await sql`
    update identity_providers set metadata_fetched_at = updated_at, metadata_attempted_at = updated_at
    where protocol = 'saml' and settings->>'metadataUrl' is not null`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table identity_providers
      drop column metadata_error,
      drop column metadata_attempted_at,
      drop column metadata_fetched_at`.execute(db);
}
