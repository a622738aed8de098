import { sql } from 'kysely';
import type { IdentityProvidersRow, NewIdentityProvidersRow } from '../../../generated/db/types.ts';
import type { SecretBox } from '../../auth/secret-box.ts';
import type { Executor } from '../../db/transaction.ts';
import { notFound } from '../../errors.ts';
import { requireTenant } from '../tenants/tenants.repository.ts';
import type { AttributeMapping, IdentityProvider, OidcSettings, RoleMapping, SamlSettings } from './provider-settings.ts';

export type IdentityProviderRow = IdentityProvidersRow;

function findIdentityProvider(db: Executor, tenantId: string): Promise<IdentityProviderRow | undefined> {
  return db.selectFrom('identity_providers').selectAll().where('tenant_id', '=', tenantId).executeTakeFirst();
}

export const identityProviderNotFound = (tenantId: string) =>
  notFound(`Tenant ${tenantId} has no identity provider configured`, 'IDENTITY_PROVIDER_NOT_FOUND');

/**
 * The tenant's provider as the sign-ins and the admin API read it, its client secret opened, or
 * null (local sign-in only). Here rather than in the service so that a sign-in reaches it in one hop.
 */
export async function readIdentityProvider(db: Executor, secrets: SecretBox, tenantId: string): Promise<IdentityProvider | null> {
  const row = await findIdentityProvider(db, tenantId);
  return row ? toIdentityProvider(row, secrets) : null;
}

/** The tenant's provider, or which 404: the tenant's, or its provider's (the hot path reads one row, not two). */
export async function requireIdentityProvider(db: Executor, secrets: SecretBox, tenantId: string): Promise<IdentityProvider> {
  const provider = await readIdentityProvider(db, secrets, tenantId);
  if (provider) return provider;
  await requireTenant(db, tenantId);
  throw identityProviderNotFound(tenantId);
}

export function toIdentityProvider(row: IdentityProviderRow, secrets: SecretBox): IdentityProvider {
  const common = {
    tenantId: row.tenant_id,
    attributeMapping: row.attribute_mapping as AttributeMapping,
    roleMapping: row.role_mapping as RoleMapping,
    updatedAt: row.updated_at,
  };
  if (row.protocol === 'saml') {
    type Defaulted = 'allowIdpInitiated' | 'signAuthnRequests' | 'requireEncryptedAssertions';
    const saml = row.settings as Omit<SamlSettings, Defaulted> & Partial<Pick<SamlSettings, Defaulted>>;
    const metadataRefresh = saml.metadataUrl
      ? { lastSuccessAt: row.metadata_fetched_at, lastAttemptAt: row.metadata_attempted_at, lastError: row.metadata_error }
      : null;
    return {
      ...common,
      protocol: 'saml',
      saml: {
        ...saml,
        allowIdpInitiated: saml.allowIdpInitiated ?? false,
        signAuthnRequests: saml.signAuthnRequests ?? true,
        requireEncryptedAssertions: saml.requireEncryptedAssertions ?? false,
      },
      metadataRefresh,
    };
  }
  const oidc = row.settings as OidcSettings;
  return { ...common, protocol: 'oidc', oidc: { ...oidc, clientSecret: secrets.open(row.client_secret_enc ?? '', row.tenant_id) } };
}

/** A provider as written whole: the database clock stamps `updated_at` and the metadata columns. */
export type ProviderWrite = Omit<
  NewIdentityProvidersRow,
  'updated_at' | 'metadata_fetched_at' | 'metadata_attempted_at' | 'metadata_error'
>;

/**
 * Writes the tenant's provider. `metadataFetched`: the settings were just read from their metadata
 * URL, so that is the last success (and attempt) of the refresh; otherwise its status is cleared,
 * as the settings it described were replaced.
 */
export function upsertIdentityProvider(db: Executor, row: ProviderWrite, metadataFetched: boolean): Promise<IdentityProviderRow> {
  const fetchedAt = metadataFetched ? sql<Date>`now()` : null;
  const values = {
    ...row,
    settings: JSON.stringify(row.settings),
    attribute_mapping: JSON.stringify(row.attribute_mapping),
    role_mapping: JSON.stringify(row.role_mapping),
    metadata_fetched_at: fetchedAt,
    metadata_attempted_at: fetchedAt,
    metadata_error: null,
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

/** The deleted provider's last row, or undefined when the tenant had none. */
export function deleteIdentityProvider(db: Executor, tenantId: string): Promise<IdentityProviderRow | undefined> {
  return db.deleteFrom('identity_providers').where('tenant_id', '=', tenantId).returningAll().executeTakeFirst();
}

/** What a test sign-in found (`last_test_sign_in`, migration 0029); the admin API's LastTestSignIn. */
export interface TestSignInRecord {
  at: string;
  protocol: 'saml' | 'oidc';
  /** Null when the response was refused before its subject was read. */
  subject: string | null;
  attributes: Record<string, unknown>;
  mapped: { email: string | null; firstName: string | null; lastName: string | null; department: string | null; groups: string[] } | null;
  roles: string[];
  outcome: 'create-user' | 'update-user' | 'refused';
  refusal: string | null;
}

/** Keeps `record` as the tenant's latest test sign-in (replacing the one before). */
export async function recordTestSignIn(db: Executor, tenantId: string, record: Omit<TestSignInRecord, 'at'>): Promise<void> {
  await db
    .updateTable('identity_providers')
    .set({ last_test_sign_in: JSON.stringify({ ...record, at: new Date().toISOString() }) })
    .where('tenant_id', '=', tenantId)
    .execute();
}

/** The tenant's latest test sign-in, or a 404 naming what is missing (the provider, or any test). */
export async function requireLastTestSignIn(db: Executor, tenantId: string): Promise<TestSignInRecord> {
  const row = await findIdentityProvider(db, tenantId);
  if (!row) {
    await requireTenant(db, tenantId);
    throw identityProviderNotFound(tenantId);
  }
  if (!row.last_test_sign_in) throw notFound(`Tenant ${tenantId} has run no test sign-in yet`, 'TEST_SIGN_IN_NOT_FOUND');
  return row.last_test_sign_in as TestSignInRecord;
}
