/**
 * The openid-client configuration of each tenant's OpenID provider: its discovery document, fetched
 * when first needed and again 12 hours later (the interface document's 6–24 hour window), or at once
 * when the tenant's settings change. The provider's key set has two caches: openid-client's for ID
 * tokens (refetched when a token names an unknown key id, and at most every five minutes), and ours
 * for logout tokens (jose's remote key set: kept 12 hours, refetched on an unknown key id at most
 * every 30 seconds). Every request either library makes goes through the outbound policy
 * (../providers/provider-fetch.ts) as their custom fetch: public addresses only, checked on the
 * address dialled, no redirects, at most 1 MiB.
 */
import { createRemoteJWKSet, customFetch, type JWTVerifyGetKey } from 'jose';
import * as client from 'openid-client';
import { validationFailed } from '../../errors.ts';
import type { PolicedFetch } from '../../http/outbound/policed-fetch.ts';
import { providerFailure } from '../providers/provider-fetch.ts';
import type { IdentityProvider, OidcSettings } from '../providers/provider-settings.ts';

const DISCOVERY_REFRESH_MS = 12 * 3600_000;
const KEY_SET_MAX_AGE_MS = 12 * 3600_000;
const TIMEOUT_S = 10;

type OidcProvider = IdentityProvider & { protocol: 'oidc' };

interface Cached {
  updatedAt: number;
  fetchedAt: number;
  configuration: Promise<client.Configuration>;
}

export class OidcConfigurations {
  private readonly byTenant = new Map<string, Cached>();
  private readonly keySets = new Map<string, JWTVerifyGetKey>();

  constructor(
    private readonly allowInsecure: boolean,
    private readonly fetch: PolicedFetch,
  ) {}

  /** Fetches and checks a provider's discovery document (the settings check of a PUT). */
  async discover(settings: OidcSettings, clientSecret: string): Promise<client.Configuration> {
    const configuration = await client.discovery(
      new URL(settings.discoveryUrl),
      settings.clientId,
      clientSecret,
      client.ClientSecretBasic(clientSecret),
      {
        ...(this.allowInsecure ? { execute: [client.allowInsecureRequests] } : {}),
        timeout: TIMEOUT_S,
        // Kept by the configuration for its later requests too (key set, token, userinfo).
        [client.customFetch]: this.fetch,
      },
    );
    // The issuer the document names is not repeated: no part of a fetched document is echoed.
    if (configuration.serverMetadata().issuer !== settings.issuer) {
      throw new Error(`the discovery document names an issuer other than ${settings.issuer}`);
    }
    return configuration;
  }

  /** The check IdentityProvidersService runs before storing OpenID Connect settings. */
  readonly check = async (settings: OidcSettings, clientSecret: string): Promise<void> => {
    try {
      const metadata = (await this.discover(settings, clientSecret)).serverMetadata();
      if (!metadata.authorization_endpoint || !metadata.token_endpoint || !metadata.jwks_uri) {
        throw new Error('it lacks authorization_endpoint, token_endpoint or jwks_uri');
      }
    } catch (error) {
      const message = `discovery at ${settings.discoveryUrl} failed: ${describeFailure(error)}`;
      throw validationFailed([{ field: ['oidc', 'discoveryUrl'], message }], `The OpenID provider cannot be used: ${message}`);
    }
  };

  get(provider: OidcProvider): Promise<client.Configuration> {
    const cached = this.byTenant.get(provider.tenantId);
    const now = Date.now();
    if (cached && cached.updatedAt === provider.updatedAt.getTime() && now - cached.fetchedAt < DISCOVERY_REFRESH_MS) {
      return cached.configuration;
    }
    const configuration = this.discover(provider.oidc, provider.oidc.clientSecret);
    const entry: Cached = { updatedAt: provider.updatedAt.getTime(), fetchedAt: now, configuration };
    this.byTenant.set(provider.tenantId, entry);
    // A failed discovery is not cached: the next sign-in tries again.
    configuration.catch(() => {
      if (this.byTenant.get(provider.tenantId) === entry) this.byTenant.delete(provider.tenantId);
    });
    return configuration;
  }

  /** The provider's key set for logout tokens. */
  keySet(jwksUri: string): JWTVerifyGetKey {
    let keys = this.keySets.get(jwksUri);
    if (!keys) {
      keys = createRemoteJWKSet(new URL(jwksUri), {
        cacheMaxAge: KEY_SET_MAX_AGE_MS,
        cooldownDuration: 30_000,
        timeoutDuration: TIMEOUT_S * 1000,
        [customFetch]: this.fetch,
      });
      this.keySets.set(jwksUri, keys);
    }
    return keys;
  }
}

/**
 * Why a provider's document could not be used: the outbound policy's reason (address refused, no
 * answer, too large), else openid-client's own message, which names the check that failed.
 */
export function describeFailure(error: unknown): string {
  return providerFailure(error) ?? (error as Error).message;
}
