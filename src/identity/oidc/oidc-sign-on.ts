/**
 * OpenID Connect single sign-on of a tenant with openid-client (decision 93): the authorization code
 * flow with PKCE (S256), state and nonce, the three kept in `sso_requests` under the state so that any
 * instance may take the callback, and each usable once. Back-channel logout validates the signed
 * `logout_token` (signature by the provider's published keys, issuer, audience, `iat`, the
 * back-channel `events` claim, `sid` or `sub`, no `nonce`, its `jti` seen once) and revokes the
 * sessions it names. RP-initiated logout: the sign-in's ID token is kept sealed on the session, and
 * logout sends the browser to the provider's end-session endpoint with it as `id_token_hint`.
 */
import { jwtVerify, errors as joseErrors } from 'jose';
import * as client from 'openid-client';
import type { Database } from '../../db/database.ts';
import { AppError, notFound } from '../../errors.ts';
import type { SecretBox } from '../../auth/secret-box.ts';
import { readIdentityProvider, recordTestSignIn, requireIdentityProvider } from '../providers/identity-providers.repository.ts';
import type { IdentityProvider } from '../providers/provider-settings.ts';
import { revokeSessionsByProvider } from '../sign-in/sessions.repository.ts';
import type { VerifiedSignIn } from '../sign-in/accounts.service.ts';
import { bindingMatches, newBinding, type SignInStart } from '../sign-in/browser-binding.ts';
import { invalidReturnTo, safeReturnTo } from '../sign-in/return-to.ts';
import * as state from '../sign-in/sso-state.repository.ts';
import { describeFailure, type OidcConfigurations } from './oidc-configurations.ts';

const REQUEST_TTL_S = 10 * 60;
const BACKCHANNEL_EVENT = 'http://schemas.openid.net/event/backchannel-logout';
/** A logout token older than this is refused; its `jti` is remembered for as long. */
const LOGOUT_TOKEN_MAX_AGE_S = 5 * 60;

type OidcProvider = IdentityProvider & { protocol: 'oidc' };

/** A refused sign-in: the caller's doing (or an attacker's), never the server's; no session is made. */
class OidcRejected extends AppError {
  constructor(reason: string) {
    super('UNAUTHENTICATED', `OpenID Connect ${reason}`, 'SSO_REJECTED');
    this.name = 'OidcRejected';
  }
}

/** A logout token that fails validation: the back-channel request is bad (400), nothing is ended. */
const logoutRefused = (reason: string) => new AppError('VALIDATION', `Back-channel logout refused: ${reason}`, 'LOGOUT_TOKEN_REJECTED');

export function redirectUriOf(baseUrl: string, tenantId: string): string {
  return `${baseUrl}/auth/oidc/${tenantId}/callback`;
}

/** Where a provider's end-session endpoint sends the browser back: this service's root, the same for every tenant. */
function postLogoutRedirectUriOf(baseUrl: string): string {
  return `${baseUrl}/`;
}

/** The sealed ID token of a session is bound to its tenant and subject: moved to another user's row, it does not open. */
const idTokenContext = (tenantId: string, subject: string) => `oidc-id-token:${tenantId}:${subject}`;

export function backchannelLogoutUriOf(baseUrl: string, tenantId: string): string {
  return `${baseUrl}/auth/oidc/${tenantId}/backchannel-logout`;
}

export class OidcSignOn {
  constructor(
    private readonly db: Database,
    private readonly secrets: SecretBox,
    private readonly configurations: OidcConfigurations,
    private readonly baseUrl: string,
  ) {}

  /**
   * The provider's authorization URL for a new sign-in, and the binding whose cookie the browser must
   * bring back to the callback (none for an administrator's test sign-in, which signs nobody in).
   */
  async loginUrl(tenantId: string, returnTo: string | undefined, options: { test?: boolean } = {}): Promise<SignInStart> {
    const provider = await this.oidcProvider(tenantId);
    const target = safeReturnTo(returnTo, this.baseUrl);
    if (target === null) throw invalidReturnTo();
    const configuration = await this.configuration(provider);
    const codeVerifier = client.randomPKCECodeVerifier();
    const stateValue = client.randomState();
    const nonce = client.randomNonce();
    const binding = options.test ? null : newBinding();
    await state.insertSsoRequest(this.db, {
      id: stateValue,
      tenant_id: tenantId,
      protocol: 'oidc',
      return_to: target,
      relay_state: null,
      code_verifier: codeVerifier,
      nonce,
      test: options.test ?? false,
      browser_binding: binding?.digest ?? null,
      ttlS: REQUEST_TTL_S,
    });
    const url = client
      .buildAuthorizationUrl(configuration, {
        redirect_uri: redirectUriOf(this.baseUrl, tenantId),
        scope: provider.oidc.scopes.join(' '),
        response_type: 'code',
        code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
        code_challenge_method: 'S256',
        state: stateValue,
        nonce,
      })
      .toString();
    return { url, binding };
  }

  /** Completes a sign-in from the callback's query string, in the browser that brings `browserCookie`. */
  async callback(tenantId: string, query: URLSearchParams, browserCookie: string | null): Promise<VerifiedSignIn> {
    const provider = await this.oidcProvider(tenantId);
    const stateValue = query.get('state');
    if (!stateValue) throw new OidcRejected('callback refused: it has no state');
    const request = await state.takeSsoRequest(this.db, tenantId, 'oidc', stateValue);
    if (!request) throw new OidcRejected('callback refused: its state names no sign-in in progress (unknown, used or expired)');
    try {
      return await this.complete(provider, tenantId, query, browserCookie, request);
    } catch (error) {
      // A refused test sign-in is the tenant's latest test too: the portal shows what refused it.
      if (error instanceof OidcRejected && request.test) {
        await recordTestSignIn(this.db, tenantId, {
          protocol: 'oidc',
          subject: null,
          attributes: {},
          mapped: null,
          roles: [],
          outcome: 'refused',
          refusal: error.message,
        });
      }
      throw error;
    }
  }

  private async complete(
    provider: OidcProvider,
    tenantId: string,
    query: URLSearchParams,
    browserCookie: string | null,
    request: state.SsoRequestRow,
  ): Promise<VerifiedSignIn> {
    const stateValue = request.id;
    const error = query.get('error');
    if (error)
      throw new OidcRejected(
        `sign-in refused by the provider: ${error}${query.get('error_description') ? ` (${query.get('error_description')})` : ''}`,
      );
    if (request.browser_binding !== null && !bindingMatches(browserCookie, request.browser_binding)) {
      throw new OidcRejected('callback refused: the sign-in was not started in this browser');
    }
    const configuration = await this.configuration(provider);
    const currentUrl = new URL(`${redirectUriOf(this.baseUrl, tenantId)}?${query.toString()}`);
    let claims: client.IDToken;
    let accessToken: string;
    let idToken: string;
    try {
      const tokens = await client.authorizationCodeGrant(configuration, currentUrl, {
        pkceCodeVerifier: request.code_verifier!,
        expectedState: stateValue,
        expectedNonce: request.nonce!,
        idTokenExpected: true,
      });
      claims = tokens.claims()!;
      accessToken = tokens.access_token;
      idToken = tokens.id_token!;
    } catch (cause) {
      throw new OidcRejected(`callback refused: ${describeFailure(cause)}`);
    }
    let attributes: Record<string, unknown> = { ...claims };
    // Providers that keep profile claims out of the ID token serve them at the userinfo endpoint.
    if (configuration.serverMetadata().userinfo_endpoint && (!claims.email || !claims[provider.attributeMapping.groups])) {
      try {
        attributes = { ...(await client.fetchUserInfo(configuration, accessToken, claims.sub)), ...attributes };
      } catch {
        // The ID token is enough to sign in; a userinfo failure only leaves claims out.
      }
    }
    const identity = {
      protocol: 'oidc' as const,
      subject: claims.sub,
      attributes,
      idpSessionId: typeof claims.sid === 'string' ? claims.sid : null,
      // Not for a test sign-in, which opens no session to keep it on.
      ...(request.test ? {} : { idTokenSealed: this.secrets.seal(idToken, idTokenContext(tenantId, claims.sub)) }),
    };
    return { provider, identity, test: request.test, returnTo: request.return_to };
  }

  /** Validates a back-channel `logout_token` and revokes the sessions it names; how many. */
  async backchannelLogout(tenantId: string, logoutToken: unknown): Promise<number> {
    const provider = await this.oidcProvider(tenantId);
    if (typeof logoutToken !== 'string' || !logoutToken) throw logoutRefused('no logout_token');
    const metadata = (await this.configuration(provider)).serverMetadata();
    if (!metadata.jwks_uri) throw logoutRefused('the provider publishes no jwks_uri');
    let payload;
    try {
      ({ payload } = await jwtVerify(logoutToken, this.configurations.keySet(metadata.jwks_uri), {
        issuer: metadata.issuer,
        audience: provider.oidc.clientId,
        algorithms: ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'],
        maxTokenAge: LOGOUT_TOKEN_MAX_AGE_S,
        requiredClaims: ['iat', 'jti'],
      }));
    } catch (cause) {
      const reason = cause instanceof joseErrors.JOSEError ? cause.message : 'the token cannot be verified';
      throw logoutRefused(reason);
    }
    const events = payload.events as Record<string, unknown> | undefined;
    if (!events || typeof events !== 'object' || typeof events[BACKCHANNEL_EVENT] !== 'object' || events[BACKCHANNEL_EVENT] === null) {
      throw logoutRefused('the events claim has no back-channel logout event');
    }
    if ('nonce' in payload) throw logoutRefused('a logout token must not carry a nonce');
    const sid = typeof payload.sid === 'string' ? payload.sid : undefined;
    const sub = typeof payload.sub === 'string' ? payload.sub : undefined;
    if (!sid && !sub) throw logoutRefused('the token names neither sid nor sub');
    const expiresAt = new Date((payload.iat! + LOGOUT_TOKEN_MAX_AGE_S + 60) * 1000);
    const fresh = await state.rememberOnce(this.db, {
      tenant_id: tenantId,
      kind: 'oidc-logout-token',
      id: String(payload.jti),
      expires_at: expiresAt,
    });
    if (!fresh) throw logoutRefused('this logout token was already used');
    return revokeSessionsByProvider(this.db, tenantId, { ...(sid ? { sid } : {}), ...(sub ? { sub } : {}) });
  }

  /**
   * The provider's end-session URL (RP-initiated logout) for a session signed in through it, when its
   * discovery document has an `end_session_endpoint`: with `client_id`, the sign-in's ID token as
   * `id_token_hint` and `post_logout_redirect_uri` `{base}/` (the one URI to register for every tenant).
   */
  async endSessionUrl(session: {
    tenant_id: string;
    idp_subject: string | null;
    idp_id_token_sealed: string | null;
  }): Promise<string | null> {
    const provider = await readIdentityProvider(this.db, this.secrets, session.tenant_id);
    if (provider?.protocol !== 'oidc') return null;
    const configuration = await this.configuration(provider);
    if (!configuration.serverMetadata().end_session_endpoint) return null;
    const parameters: Record<string, string> = { post_logout_redirect_uri: postLogoutRedirectUriOf(this.baseUrl) };
    if (session.idp_id_token_sealed && session.idp_subject) {
      try {
        parameters.id_token_hint = this.secrets.open(session.idp_id_token_sealed, idTokenContext(session.tenant_id, session.idp_subject));
      } catch {
        // Sealed under a replaced SECRETS_KEY: the provider asks the user to confirm instead.
      }
    }
    return client.buildEndSessionUrl(configuration, parameters).toString();
  }

  private async configuration(provider: OidcProvider): Promise<client.Configuration> {
    try {
      return await this.configurations.get(provider);
    } catch (cause) {
      throw new OidcRejected(`sign-in unavailable: the provider's discovery document cannot be read (${describeFailure(cause)})`);
    }
  }

  private async oidcProvider(tenantId: string): Promise<OidcProvider> {
    const provider = await requireIdentityProvider(this.db, this.secrets, tenantId);
    if (provider.protocol !== 'oidc') throw notFound(`Tenant ${tenantId} signs in with SAML, not OpenID Connect`, 'OIDC_NOT_CONFIGURED');
    return provider;
  }
}
