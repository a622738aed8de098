/** JSON shapes of openapi/admin.yaml's single sign-on set-up: identity providers and domains. */
import type { components } from '../../../generated/openapi/admin.ts';
import type { DomainRow } from '../domains/domains.repository.ts';
import { txtRecordName, txtRecordValue } from '../domains/txt-records.ts';
import { backchannelLogoutUriOf, redirectUriOf } from '../oidc/oidc-sign-on.ts';
import type { IdentityProvider } from '../providers/provider-settings.ts';
import { serviceProviderOf } from '../saml/saml-sign-on.ts';
import type { SpKeyPair } from '../saml/sp-keys.repository.ts';

type Schemas = components['schemas'];

export function toIdentityProvider(provider: IdentityProvider, baseUrl: string): Schemas['IdentityProvider'] {
  const common = {
    tenantId: provider.tenantId,
    protocol: provider.protocol,
    attributeMapping: provider.attributeMapping,
    roleMapping: provider.roleMapping,
    updatedAt: provider.updatedAt.toISOString(),
  };
  if (provider.protocol === 'saml') {
    const { saml } = provider;
    return {
      ...common,
      saml: {
        entityId: saml.entityId,
        ssoUrl: saml.ssoUrl,
        sloUrl: saml.sloUrl,
        certificate: saml.certificates[0]!,
        certificateBackup: saml.certificates[1] ?? null,
        certificates: saml.certificates,
        nameIdFormat: saml.nameIdFormat,
        signedAssertions: saml.signedAssertions,
        signedResponses: saml.signedResponses,
        metadataUrl: saml.metadataUrl,
        allowIdpInitiated: saml.allowIdpInitiated,
        signAuthnRequests: saml.signAuthnRequests,
        requireEncryptedAssertions: saml.requireEncryptedAssertions,
      },
      serviceProvider: serviceProviderOf(baseUrl, provider.tenantId),
      // Only a provider configured by metadata URL is refreshed: the others have nothing to show.
      ...(provider.metadataRefresh
        ? {
            metadataRefresh: {
              lastSuccessAt: provider.metadataRefresh.lastSuccessAt?.toISOString() ?? null,
              lastAttemptAt: provider.metadataRefresh.lastAttemptAt?.toISOString() ?? null,
              lastError: provider.metadataRefresh.lastError,
            },
          }
        : {}),
    };
  }
  const { oidc } = provider;
  return {
    ...common,
    oidc: { issuer: oidc.issuer, clientId: oidc.clientId, discoveryUrl: oidc.discoveryUrl, scopes: oidc.scopes, clientSecretSet: true },
    serviceProvider: {
      redirectUri: redirectUriOf(baseUrl, provider.tenantId),
      backchannelLogoutUri: backchannelLogoutUriOf(baseUrl, provider.tenantId),
    },
  };
}

/** The published SP keys: certificates only, the private keys never leave the server. */
export function toSamlKeyList(keys: SpKeyPair[]): Schemas['SamlKeyList'] {
  return {
    data: keys.map((key) => ({
      use: key.use,
      certificate: key.certificate,
      createdAt: key.createdAt.toISOString(),
      retiresAt: key.retiresAt?.toISOString() ?? null,
    })),
  };
}

export function toDomain(row: DomainRow): Schemas['Domain'] {
  return {
    domain: row.domain,
    tenantId: row.tenant_id,
    status: row.status as Schemas['Domain']['status'],
    enforceSso: row.enforce_sso,
    verificationToken: row.verification_token,
    txtRecordName: txtRecordName(row.domain),
    txtRecordValue: txtRecordValue(row),
    createdAt: row.created_at.toISOString(),
    verifiedAt: row.verified_at?.toISOString() ?? null,
  };
}
