/**
 * A tenant's identity provider configuration (the interface document's table): set, read, removed.
 * SAML settings come field by field, or from metadata XML or a metadata URL (parsed into the same
 * fields); OpenID Connect settings are checked against the provider's discovery document before they
 * are stored, so a typo is a 400 now rather than a failed sign-in later. The client secret is sealed
 * (src/auth/secret-box.ts) and never returned.
 */
import type { Database } from '../../db/database.ts';
import { inTransaction } from '../../db/transaction.ts';
import { validationFailed } from '../../errors.ts';
import type { SecretBox } from '../../auth/secret-box.ts';
import { requireTenant } from '../tenants/tenants.repository.ts';
import { normalizeCertificate } from './certificates.ts';
import type { PolicedFetch } from '../../http/outbound/policed-fetch.ts';
import { checkProviderUrl } from './identity-provider-urls.ts';
import * as repo from './identity-providers.repository.ts';
import { fetchMetadata, fieldsOfMetadata } from './metadata-settings.ts';
import { recordProviderDeleted } from './provider-events.ts';
import { replaceIdentityProvider } from './provider-write.ts';
import {
  DEFAULT_ATTRIBUTE_MAPPING,
  type AttributeMapping,
  type IdentityProvider,
  type OidcSettings,
  type RoleMapping,
  type SamlSettings,
} from './provider-settings.ts';
import { EMAIL_NAME_ID_FORMAT } from './saml-metadata.ts';

interface IdentityProviderInput {
  protocol: 'saml' | 'oidc';
  saml?: {
    entityId: string;
    ssoUrl: string;
    sloUrl?: string | null;
    certificate: string;
    certificateBackup?: string | null;
    nameIdFormat?: string;
    signedAssertions?: boolean;
    signedResponses?: boolean;
  };
  metadataXml?: string;
  metadataUrl?: string;
  /** SAML: accept unsolicited (provider-initiated) responses; false unless said. */
  allowIdpInitiated?: boolean;
  /** SAML: sign AuthnRequests with the tenant's SP key; true unless said. */
  signAuthnRequests?: boolean;
  /** SAML: refuse assertions that are not encrypted; false unless said. */
  requireEncryptedAssertions?: boolean;
  oidc?: { issuer: string; clientId: string; clientSecret?: string; discoveryUrl?: string; scopes?: string[] };
  attributeMapping?: Partial<AttributeMapping>;
  roleMapping?: RoleMapping;
}

/** Checks an OpenID provider's discovery document; throws a VALIDATION error saying what is wrong. */
type OidcDiscoveryCheck = (settings: OidcSettings, clientSecret: string) => Promise<void>;

const ROLE = /^[A-Z][A-Z0-9_]{0,63}$/;

export class IdentityProvidersService {
  constructor(
    private readonly db: Database,
    private readonly secrets: SecretBox,
    private readonly options: {
      allowInsecureIdp: boolean;
      checkOidc: OidcDiscoveryCheck;
      /** The metadata URL is read through the outbound policy (./provider-fetch.ts). */
      fetch: PolicedFetch;
      /** BASE_URL: the service provider URLs of the events' representation. */
      baseUrl: string;
    },
  ) {}

  /** The tenant's provider, or null when it has none (local sign-in only). */
  find(tenantId: string): Promise<IdentityProvider | null> {
    return repo.readIdentityProvider(this.db, this.secrets, tenantId);
  }

  get(tenantId: string): Promise<IdentityProvider> {
    return repo.requireIdentityProvider(this.db, this.secrets, tenantId);
  }

  /** What the tenant's latest test sign-in found (recorded by the sign-ins, whichever window ran it). */
  lastTestSignIn(tenantId: string): Promise<repo.TestSignInRecord> {
    return repo.requireLastTestSignIn(this.db, tenantId);
  }

  async put(tenantId: string, input: IdentityProviderInput): Promise<IdentityProvider> {
    await requireTenant(this.db, tenantId);
    const existing = await this.find(tenantId);
    const attributeMapping = { ...DEFAULT_ATTRIBUTE_MAPPING[input.protocol], ...input.attributeMapping };
    const roleMapping = input.roleMapping ?? existing?.roleMapping ?? {};
    for (const [group, role] of Object.entries(roleMapping)) {
      if (!ROLE.test(role)) {
        throw validationFailed([{ field: ['roleMapping', group], message: 'must be a role name: upper-case letters, digits and _' }]);
      }
    }
    if (input.protocol === 'saml') {
      const saml = await this.samlSettings(input);
      return this.write({
        tenant_id: tenantId,
        protocol: 'saml',
        settings: saml,
        client_secret_enc: null,
        attribute_mapping: attributeMapping,
        role_mapping: roleMapping,
      });
    }
    if (!input.oidc) throw validationFailed([{ field: ['oidc'], message: 'is required when protocol is oidc' }]);
    if (input.allowIdpInitiated) {
      throw validationFailed([
        { field: ['allowIdpInitiated'], message: 'applies to SAML only: OpenID Connect sign-ins always start here' },
      ]);
    }
    if (input.signAuthnRequests !== undefined) {
      throw validationFailed([{ field: ['signAuthnRequests'], message: 'applies to SAML only' }]);
    }
    if (input.requireEncryptedAssertions !== undefined) {
      throw validationFailed([{ field: ['requireEncryptedAssertions'], message: 'applies to SAML only' }]);
    }
    const allow = this.options.allowInsecureIdp;
    const issuer = checkProviderUrl(input.oidc.issuer, ['oidc', 'issuer'], allow);
    const settings: OidcSettings = {
      issuer,
      clientId: input.oidc.clientId,
      discoveryUrl: checkProviderUrl(
        input.oidc.discoveryUrl ?? `${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`,
        ['oidc', 'discoveryUrl'],
        allow,
      ),
      scopes: [...new Set(['openid', ...(input.oidc.scopes ?? ['email', 'profile'])])],
    };
    // A secret left out keeps the one stored for the same client: changing mappings needs no secret.
    const keep = existing?.protocol === 'oidc' && existing.oidc.clientId === settings.clientId ? existing.oidc.clientSecret : undefined;
    const clientSecret = input.oidc.clientSecret ?? keep;
    if (!clientSecret) throw validationFailed([{ field: ['oidc', 'clientSecret'], message: 'is required' }]);
    await this.options.checkOidc(settings, clientSecret);
    return this.write({
      tenant_id: tenantId,
      protocol: 'oidc',
      settings,
      client_secret_enc: this.secrets.seal(clientSecret, tenantId),
      attribute_mapping: attributeMapping,
      role_mapping: roleMapping,
    });
  }

  /** Replaces the tenant's provider with `row` and records what that changed, in one transaction. */
  private write(row: repo.ProviderWrite): Promise<IdentityProvider> {
    // Settings with a metadata URL were read from it just now: the refresh's last success.
    const fetched = row.protocol === 'saml' && (row.settings as SamlSettings).metadataUrl !== null;
    return inTransaction(this.db, async (trx) => {
      await requireTenant(trx, row.tenant_id, true);
      return replaceIdentityProvider(trx, this.secrets, this.options.baseUrl, row, fetched);
    });
  }

  async remove(tenantId: string): Promise<void> {
    await inTransaction(this.db, async (trx) => {
      await requireTenant(trx, tenantId, true);
      const deleted = await repo.deleteIdentityProvider(trx, tenantId);
      if (!deleted) throw repo.identityProviderNotFound(tenantId);
      await recordProviderDeleted(trx, repo.toIdentityProvider(deleted, this.secrets), this.options.baseUrl);
    });
  }

  private async samlSettings(input: IdentityProviderInput): Promise<SamlSettings> {
    const allow = this.options.allowInsecureIdp;
    const given = [input.saml, input.metadataXml, input.metadataUrl].filter((v) => v !== undefined).length;
    if (given !== 1) {
      throw validationFailed([{ field: ['saml'], message: 'give exactly one of saml, metadataXml or metadataUrl' }]);
    }
    const allowIdpInitiated = input.allowIdpInitiated ?? false;
    const signAuthnRequests = input.signAuthnRequests ?? true;
    const requireEncryptedAssertions = input.requireEncryptedAssertions ?? false;
    // The checklist requires the assertion's own signature; a configuration that waives it is refused.
    if (input.saml?.signedAssertions === false) {
      throw validationFailed([{ field: ['saml', 'signedAssertions'], message: 'must be true: every assertion must be signed' }]);
    }
    if (input.saml) {
      const s = input.saml;
      return {
        entityId: s.entityId,
        ssoUrl: checkProviderUrl(s.ssoUrl, ['saml', 'ssoUrl'], allow),
        sloUrl: s.sloUrl ? checkProviderUrl(s.sloUrl, ['saml', 'sloUrl'], allow) : null,
        certificates: [
          normalizeCertificate(s.certificate, ['saml', 'certificate']),
          ...(s.certificateBackup ? [normalizeCertificate(s.certificateBackup, ['saml', 'certificateBackup'])] : []),
        ],
        nameIdFormat: s.nameIdFormat ?? EMAIL_NAME_ID_FORMAT,
        signedAssertions: true,
        signedResponses: s.signedResponses ?? false,
        metadataUrl: null,
        allowIdpInitiated,
        signAuthnRequests,
        requireEncryptedAssertions,
      };
    }
    const metadataUrl = input.metadataUrl ? checkProviderUrl(input.metadataUrl, ['metadataUrl'], allow) : null;
    const xml = metadataUrl ? await fetchMetadata(this.options.fetch, metadataUrl) : input.metadataXml!;
    return {
      ...fieldsOfMetadata(xml, allow),
      signedAssertions: true,
      signedResponses: false,
      metadataUrl,
      allowIdpInitiated,
      signAuthnRequests,
      requireEncryptedAssertions,
    };
  }
}
