/** A tenant's identity provider as the sign-in code uses it: settings decrypted, mappings typed. */

export interface AttributeMapping {
  email: string;
  firstName: string;
  lastName: string;
  groups: string;
  department?: string;
}

export type RoleMapping = Record<string, string>;

export interface SamlSettings {
  entityId: string;
  ssoUrl: string;
  sloUrl: string | null;
  /** PEM of every certificate a response may be signed with: the current one first, then the backup. */
  certificates: string[];
  nameIdFormat: string;
  signedAssertions: boolean;
  signedResponses: boolean;
  /** Where the metadata was read from, when it came from a URL. */
  metadataUrl: string | null;
  /**
   * Whether unsolicited (provider-initiated) responses sign users in. They cannot be bound to the
   * browser that receives them (login CSRF), so a tenant opts in; false for settings stored before.
   */
  allowIdpInitiated: boolean;
  /**
   * Whether AuthnRequests (and logout requests) are signed with the tenant's SP signing key and the
   * metadata says AuthnRequestsSigned. True unless the tenant turned it off for a provider that
   * refuses signed requests; true for settings stored before (providers that do not know the key ignore it).
   */
  signAuthnRequests: boolean;
  /**
   * Whether only an EncryptedAssertion (to the tenant's SP encryption key) signs anybody in; a plain
   * assertion is refused. False unless the tenant turned it on; false for settings stored before.
   */
  requireEncryptedAssertions: boolean;
}

export interface OidcSettings {
  issuer: string;
  clientId: string;
  discoveryUrl: string;
  scopes: string[];
}

/**
 * How a SAML provider configured by metadata URL was last refreshed (./metadata-refresh.ts): not a
 * setting, so a change of it alone is no `identity_provider.updated`.
 */
interface MetadataRefreshStatus {
  /** When the URL last answered usable metadata (the PUT that read it, or a refresh). */
  lastSuccessAt: Date | null;
  /** When a refresh was last tried, successful or not. */
  lastAttemptAt: Date | null;
  /** Why the last refresh failed (the settings were kept); null when it succeeded. */
  lastError: string | null;
}

interface Common {
  tenantId: string;
  attributeMapping: AttributeMapping;
  roleMapping: RoleMapping;
  updatedAt: Date;
}

export type IdentityProvider = Common &
  (
    | {
        protocol: 'saml';
        saml: SamlSettings;
        /** Null unless the settings come from a metadata URL. */ metadataRefresh: MetadataRefreshStatus | null;
      }
    | { protocol: 'oidc'; oidc: OidcSettings & { clientSecret: string } }
  );

export const DEFAULT_ATTRIBUTE_MAPPING: Record<IdentityProvider['protocol'], AttributeMapping> = {
  saml: { email: 'email', firstName: 'firstName', lastName: 'lastName', groups: 'groups' },
  oidc: { email: 'email', firstName: 'given_name', lastName: 'family_name', groups: 'groups' },
};
