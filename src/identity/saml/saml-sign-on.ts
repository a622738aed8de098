/**
 * SAML 2.0 single sign-on of a tenant, through @node-saml/passport-saml's MultiSamlStrategy with the
 * options resolved per tenant (decision 92):
 *
 * - service-provider initiated: `loginUrl` stores the AuthnRequest's id with the relay state and the
 *   return address in `sso_requests` (any instance can take the callback), then node-saml builds the
 *   HTTP-Redirect URL. The response must name that id (InResponseTo, node-saml's check over our
 *   store) and come back with that relay state;
 * - provider initiated (unsolicited, no InResponseTo): accepted within a short window (the assertion
 *   at most five minutes old), its relay state only a path on this server, its assertion id accepted
 *   once;
 * - every response first passes src/identity/saml/saml-response-guard.ts (the rows node-saml leaves
 *   out, on the decrypted assertion when it came encrypted), then node-saml's signature, issuer,
 *   audience, time and InResponseTo checks, with the current and the backup certificate (and the
 *   decryption key the guard found); then the assertion id is recorded (replay);
 * - single logout (decision 211): `logoutUrl` sends a signed LogoutRequest for a session being logged
 *   out, its id kept in `sso_requests` (protocol `saml-logout`) for the LogoutResponse to name;
 *   `singleLogout` takes the provider's LogoutRequest or LogoutResponse on either binding, checked
 *   first by src/identity/saml/saml-logout-guard.ts, then by node-saml (signature, issuer, times).
 */
import { randomBytes } from 'node:crypto';
import type { MultiSamlStrategy, Profile, SamlConfig } from '@node-saml/passport-saml';
import type { CacheProvider, SAML } from '@node-saml/node-saml';
import { runStrategy } from './run-strategy.ts';
import type { Database } from '../../db/database.ts';
import { notFound } from '../../errors.ts';
import type { SecretBox } from '../../auth/secret-box.ts';
import { readIdentityProvider, recordTestSignIn, requireIdentityProvider } from '../providers/identity-providers.repository.ts';
import type { IdentityProvider, SamlSettings } from '../providers/provider-settings.ts';
import type { VerifiedSignIn } from '../sign-in/accounts.service.ts';
import { bindingMatches, newBinding, type SignInStart } from '../sign-in/browser-binding.ts';
import { invalidReturnTo, safeReturnTo } from '../sign-in/return-to.ts';
import * as state from '../sign-in/sso-state.repository.ts';
import { revokeSessionsByProvider } from '../sign-in/sessions.repository.ts';
import {
  checkLogoutMessage,
  checkRedirectSignature,
  logoutMessageOf,
  MAX_LOGOUT_MESSAGE_AGE_MS,
  SamlLogoutRejected,
  type LogoutBinding,
} from './saml-logout-guard.ts';
import { checkSamlResponse, SamlRejected } from './saml-response-guard.ts';
import { requireSpKeys, type TenantSpKeys } from './sp-keys.repository.ts';

/** How long a sign-in may take between the redirect to the provider and the callback. */
const REQUEST_TTL_S = 10 * 60;
const CLOCK_SKEW_MS = 60_000;
/** The "short NotOnOrAfter window" of unsolicited responses: an assertion older than this is refused. */
const MAX_ASSERTION_AGE_MS = 5 * 60_000;

interface SamlServiceProvider {
  entityId: string;
  acsUrl: string;
}

/** The tenant's SingleLogoutService (both bindings), published in its SP metadata. */
function singleLogoutUrlOf(baseUrl: string, tenantId: string): string {
  return `${baseUrl}/auth/saml/${tenantId}/slo`;
}

/** Where the browser lands once the provider confirmed a logout: a page of this server, never the message's choice. */
const AFTER_LOGOUT = '/';

export function serviceProviderOf(baseUrl: string, tenantId: string): SamlServiceProvider {
  return { entityId: `${baseUrl}/saml/metadata/${tenantId}`, acsUrl: `${baseUrl}/auth/saml/${tenantId}/callback` };
}

/** node-saml's request-id cache over `sso_requests`; remembers the request a response answered. */
class SsoRequestCache implements CacheProvider {
  consumed: state.SsoRequestRow | undefined;

  constructor(
    private readonly db: Database,
    private readonly tenantId: string,
    private readonly protocol: 'saml' | 'saml-logout' = 'saml',
  ) {}

  // The row is written by `loginUrl` before node-saml builds the request, with what only it knows.
  async saveAsync(key: string, value: string) {
    return { value, createdAt: Date.now(), key };
  }

  private readonly found = new Map<string, Promise<state.SsoRequestRow | undefined>>();

  /**
   * node-saml reads the value as the request's creation time, to apply its own expiry as well. It
   * asks twice per response (Response and SubjectConfirmationData); one query answers both.
   */
  async getAsync(key: string): Promise<string | null> {
    let lookup = this.found.get(key);
    if (!lookup) {
      lookup = state.findSsoRequest(this.db, this.tenantId, this.protocol, key);
      this.found.set(key, lookup);
    }
    const row = await lookup;
    return row ? new Date(row.expires_at.getTime() - REQUEST_TTL_S * 1000).toISOString() : null;
  }

  async removeAsync(key: string | null): Promise<string | null> {
    if (!key) return null;
    this.consumed = await state.takeSsoRequest(this.db, this.tenantId, this.protocol, key);
    return this.consumed ? key : null;
  }
}

interface SamlRequestContext {
  provider: IdentityProvider & { protocol: 'saml' };
  requestId?: string;
  cache: SsoRequestCache;
  /** The service provider's keys; requests are signed with them when the tenant signs requests. */
  keys?: TenantSpKeys;
  /** Metadata: node-saml publishes the encryption certificate only when it is given a decryption key. */
  forMetadata?: boolean;
  /** The callback of an EncryptedAssertion: the one key that decrypted it in the guard (decision 210). */
  decryptionKey?: string;
}

export class SamlSignOn {
  /**
   * passport-saml and the XML signature stack under it (about 1.4 MB of JavaScript) are loaded by
   * the first SAML request, not compiled at every start: most servers sign nobody in with SAML.
   */
  private loaded?: Promise<MultiSamlStrategy>;
  private nodeSaml?: Promise<typeof import('@node-saml/node-saml')>;

  constructor(
    private readonly db: Database,
    private readonly secrets: SecretBox,
    private readonly baseUrl: string,
  ) {}

  private strategy(): Promise<MultiSamlStrategy> {
    this.loaded ??= import('@node-saml/passport-saml').then(({ MultiSamlStrategy, ValidateInResponseTo }) =>
      this.newStrategy(MultiSamlStrategy, ValidateInResponseTo.ifPresent),
    );
    return this.loaded;
  }

  /** node-saml itself, for single logout (passport-saml's strategy wraps it in passport's request flow). */
  private async samlFor(context: SamlRequestContext): Promise<SAML> {
    this.nodeSaml ??= import('@node-saml/node-saml');
    const { SAML: Saml, ValidateInResponseTo } = await this.nodeSaml;
    return new Saml(this.optionsFor(context, ValidateInResponseTo.ifPresent));
  }

  private newStrategy(Strategy: typeof MultiSamlStrategy, ifPresent: SamlConfig['validateInResponseTo']): MultiSamlStrategy {
    return new Strategy(
      {
        passReqToCallback: false,
        getSamlOptions: (req, done) => {
          const context = (req as unknown as { saml: SamlRequestContext }).saml;
          done(null, this.optionsFor(context, ifPresent));
        },
      },
      (profile: Profile | null, done: (error: Error | null, user?: Record<string, unknown>) => void) =>
        done(null, profile as unknown as Record<string, unknown>),
      (_profile: Profile | null, done: (error: Error | null, user?: Record<string, unknown>) => void) => done(null, {}),
    );
  }

  /**
   * The provider's sign-in URL for a new SP-initiated sign-in, and the binding whose cookie the browser
   * must bring back to the callback (none for an administrator's test sign-in, which signs nobody in).
   */
  async loginUrl(tenantId: string, returnTo: string | undefined, options: { test?: boolean } = {}): Promise<SignInStart> {
    const provider = await this.samlProvider(tenantId);
    const target = safeReturnTo(returnTo, this.baseUrl);
    if (target === null) throw invalidReturnTo();
    const requestId = `_${randomBytes(20).toString('hex')}`;
    const relayState = randomBytes(24).toString('base64url');
    const binding = options.test ? null : newBinding();
    await state.insertSsoRequest(this.db, {
      id: requestId,
      tenant_id: tenantId,
      protocol: 'saml',
      return_to: target,
      relay_state: relayState,
      code_verifier: null,
      nonce: null,
      test: options.test ?? false,
      browser_binding: binding?.digest ?? null,
      ttlS: REQUEST_TTL_S,
    });
    const keys = provider.saml.signAuthnRequests ? await requireSpKeys(this.db, this.secrets, tenantId) : undefined;
    const saml: SamlRequestContext = { provider, requestId, cache: new SsoRequestCache(this.db, tenantId), keys };
    const outcome = await runStrategy(await this.strategy(), { saml, query: { RelayState: relayState }, body: {}, headers: {} });
    if (outcome.kind !== 'redirect') throw new Error(`passport-saml did not redirect (${outcome.kind})`);
    return { url: outcome.url, binding };
  }

  /**
   * Takes the provider's answer, posted by the browser that brings `browserCookie`. A refused answer
   * to a test sign-in is also kept as the tenant's latest test (what refused it), for the portal.
   */
  async callback(
    tenantId: string,
    form: { SAMLResponse?: unknown; RelayState?: unknown },
    browserCookie: string | null,
  ): Promise<VerifiedSignIn> {
    const progress: { cache?: SsoRequestCache } = {};
    try {
      return await this.verify(tenantId, form, browserCookie, progress);
    } catch (error) {
      if (error instanceof SamlRejected && (await this.answersTestSignIn(tenantId, form.SAMLResponse, progress.cache))) {
        await recordTestSignIn(this.db, tenantId, {
          protocol: 'saml',
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

  /**
   * Whether a refused response answered a test sign-in: the request it consumed says so, or else
   * the request its `InResponseTo` names, read from the unverified document only to find that row
   * (a forger who knew a test request's id could at most record a refusal as that test's outcome).
   */
  private async answersTestSignIn(tenantId: string, samlResponse: unknown, cache: SsoRequestCache | undefined): Promise<boolean> {
    if (cache?.consumed) return cache.consumed.test;
    if (typeof samlResponse !== 'string') return false;
    const inResponseTo = /\sInResponseTo="([^"<>]{1,256})"/.exec(Buffer.from(samlResponse, 'base64').toString('utf8'))?.[1];
    if (!inResponseTo) return false;
    return (await state.findSsoRequest(this.db, tenantId, 'saml', inResponseTo))?.test ?? false;
  }

  private async verify(
    tenantId: string,
    form: { SAMLResponse?: unknown; RelayState?: unknown },
    browserCookie: string | null,
    progress: { cache?: SsoRequestCache },
  ): Promise<VerifiedSignIn> {
    const provider = await this.samlProvider(tenantId);
    const { acsUrl } = serviceProviderOf(this.baseUrl, tenantId);
    if (typeof form.SAMLResponse !== 'string' || !form.SAMLResponse) throw new SamlRejected('the form has no SAMLResponse');
    const relayState = typeof form.RelayState === 'string' ? form.RelayState : null;
    const facts = await checkSamlResponse(form.SAMLResponse, {
      acsUrl,
      now: new Date(),
      clockSkewMs: CLOCK_SKEW_MS,
      idpEntityId: provider.saml.entityId,
      nameIdFormat: provider.saml.nameIdFormat,
      signedResponses: provider.saml.signedResponses,
      requireEncryptedAssertions: provider.saml.requireEncryptedAssertions,
      decryptionKeys: async () => (await requireSpKeys(this.db, this.secrets, tenantId)).decryptionKeys,
    });
    const saml: SamlRequestContext = {
      provider,
      cache: new SsoRequestCache(this.db, tenantId),
      ...(facts.decryptionKey ? { decryptionKey: facts.decryptionKey } : {}),
    };
    progress.cache = saml.cache;
    let outcome;
    try {
      outcome = await runStrategy<Profile>(await this.strategy(), {
        saml,
        query: {},
        body: { SAMLResponse: facts.forVerification, ...(relayState ? { RelayState: relayState } : {}) },
        headers: {},
        url: `/auth/saml/${tenantId}/callback`,
      });
    } catch (error) {
      // node-saml reports every refusal as an Error; none of them is the server's fault.
      throw new SamlRejected((error as Error).message);
    }
    if (outcome.kind !== 'success') throw new SamlRejected(outcome.kind === 'fail' ? outcome.message : 'no assertion');
    const profile = outcome.user;

    let returnTo: string;
    let test = false;
    if (facts.inResponseTo) {
      const request = saml.cache.consumed;
      if (!request || request.id !== facts.inResponseTo) throw new SamlRejected('InResponseTo names no sign-in in progress');
      if (request.relay_state !== relayState) throw new SamlRejected('RelayState is not the one this sign-in was started with');
      if (request.browser_binding !== null && !bindingMatches(browserCookie, request.browser_binding)) {
        throw new SamlRejected('the sign-in was not started in this browser');
      }
      returnTo = request.return_to;
      test = request.test;
    } else {
      // An unsolicited response cannot be bound to a browser: a tenant must choose to accept them.
      if (!provider.saml.allowIdpInitiated) throw new SamlRejected('provider-initiated sign-in is not enabled for this tenant');
      const target = safeReturnTo(relayState, this.baseUrl);
      if (target === null) throw new SamlRejected('the RelayState of an unsolicited response must be a path on this server');
      returnTo = target;
    }
    const expiresAt = new Date(Math.max(facts.notOnOrAfter?.getTime() ?? 0, Date.now() + MAX_ASSERTION_AGE_MS) + CLOCK_SKEW_MS);
    const fresh = await state.rememberOnce(this.db, {
      tenant_id: tenantId,
      kind: 'saml-assertion',
      id: facts.assertionId,
      expires_at: expiresAt,
    });
    if (!fresh) throw new SamlRejected(`assertion ${facts.assertionId} was already used`);

    const identity = {
      protocol: 'saml' as const,
      subject: profile.nameID,
      attributes: (profile.attributes as Record<string, unknown> | undefined) ?? {},
      idpSessionId: profile.sessionIndex ?? null,
    };
    return { provider, identity, test, returnTo };
  }

  /**
   * The service provider metadata a tenant gives its identity provider: every published signing
   * certificate (old and new during a rotation's grace period) when the tenant signs its requests,
   * and the newest encryption certificate (node-saml writes one; a provider encrypts to one anyway,
   * and the older key is kept for what was encrypted to it).
   */
  async metadata(tenantId: string): Promise<string> {
    const provider = await this.samlProvider(tenantId);
    const keys = await requireSpKeys(this.db, this.secrets, tenantId);
    const saml: SamlRequestContext = { provider, cache: new SsoRequestCache(this.db, tenantId), keys, forMetadata: true };
    const strategy = await this.strategy();
    const signingCerts = provider.saml.signAuthnRequests ? keys.signing.map((k) => k.certificate) : null;
    const xml = await new Promise<string>((resolve, reject) =>
      strategy.generateServiceProviderMetadata({ saml } as never, keys.encryption[0]!.certificate, signingCerts, (error, xml) =>
        error ? reject(error) : resolve(xml!),
      ),
    );
    // node-saml publishes the single logout service on the HTTP-POST binding only; it takes both.
    const post = /<SingleLogoutService Binding="urn:oasis:names:tc:SAML:2\.0:bindings:HTTP-POST" Location="([^"]*)"\/>/;
    return xml.replace(
      post,
      (element, location: string) =>
        `<SingleLogoutService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="${location}"/>${element}`,
    );
  }

  /**
   * The provider's SingleLogoutService URL with a LogoutRequest for a session being logged out
   * (HTTP-Redirect binding, signed like AuthnRequests), naming the sign-in's NameID and SessionIndex;
   * null when the provider has no single logout URL. The request id is kept for the LogoutResponse.
   */
  async logoutUrl(session: { tenant_id: string; idp_subject: string | null; idp_session_id: string | null }): Promise<string | null> {
    const tenantId = session.tenant_id;
    const provider = await readIdentityProvider(this.db, this.secrets, tenantId);
    if (provider?.protocol !== 'saml' || !provider.saml.sloUrl || !session.idp_subject) return null;
    const requestId = `_${randomBytes(20).toString('hex')}`;
    const relayState = randomBytes(24).toString('base64url');
    await state.insertSsoRequest(this.db, {
      id: requestId,
      tenant_id: tenantId,
      protocol: 'saml-logout',
      return_to: AFTER_LOGOUT,
      relay_state: relayState,
      code_verifier: null,
      nonce: null,
      test: false,
      browser_binding: null,
      ttlS: REQUEST_TTL_S,
    });
    const keys = provider.saml.signAuthnRequests ? await requireSpKeys(this.db, this.secrets, tenantId) : undefined;
    const saml = await this.samlFor({ provider, requestId, cache: new SsoRequestCache(this.db, tenantId, 'saml-logout'), keys });
    const user = {
      issuer: provider.saml.entityId,
      nameID: session.idp_subject,
      nameIDFormat: provider.saml.nameIdFormat,
      ...(session.idp_session_id ? { sessionIndex: session.idp_session_id } : {}),
    };
    return saml.getLogoutUrlAsync(user, relayState, {});
  }

  /**
   * A message from the provider at the tenant's SingleLogoutService, on either binding (`rawQuery`:
   * the query string as received, for the redirect binding's signature). A LogoutRequest ends the
   * sessions of its NameID (and SessionIndex) in the tenant and is answered with a LogoutResponse
   * at the provider's single logout URL; a LogoutResponse must answer a LogoutRequest `logoutUrl`
   * sent, and the browser goes home. Where to send the browser either way.
   */
  async singleLogout(
    tenantId: string,
    binding: LogoutBinding,
    fields: { SAMLRequest?: unknown; SAMLResponse?: unknown; RelayState?: unknown; SigAlg?: unknown; Signature?: unknown },
    rawQuery: string,
  ): Promise<{ location: string; sessionsEnded: number }> {
    const provider = await this.samlProvider(tenantId);
    if (!provider.saml.sloUrl) throw new SamlLogoutRejected('the tenant’s provider has no single logout URL (sloUrl)');
    const message = logoutMessageOf(fields);
    const relayState = typeof fields.RelayState === 'string' && fields.RelayState ? fields.RelayState : null;
    const now = new Date();
    const facts = checkLogoutMessage(message, binding, {
      sloUrl: singleLogoutUrlOf(this.baseUrl, tenantId),
      idpEntityId: provider.saml.entityId,
      certificates: provider.saml.certificates,
      now,
      clockSkewMs: CLOCK_SKEW_MS,
    });
    if (binding === 'redirect') checkRedirectSignature(rawQuery, message.kind, provider.saml.certificates);

    const protocol = message.kind === 'LogoutRequest' ? 'saml' : 'saml-logout';
    const keys = provider.saml.signAuthnRequests ? await requireSpKeys(this.db, this.secrets, tenantId) : undefined;
    const saml = await this.samlFor({ provider, cache: new SsoRequestCache(this.db, tenantId, protocol), keys });
    const container = { [message.kind === 'LogoutRequest' ? 'SAMLRequest' : 'SAMLResponse']: message.encoded };
    if (typeof fields.SigAlg === 'string') container.SigAlg = fields.SigAlg;
    if (typeof fields.Signature === 'string') container.Signature = fields.Signature;
    if (relayState) container.RelayState = relayState;
    let profile;
    try {
      if (binding === 'redirect') ({ profile } = await saml.validateRedirectAsync(container, rawQuery));
      else if (message.kind === 'LogoutRequest') ({ profile } = await saml.validatePostRequestAsync(container));
      else ({ profile } = await saml.validatePostResponseAsync(container));
    } catch (error) {
      // node-saml reports every refusal as an Error; none of them is the server's fault.
      throw new SamlLogoutRejected((error as Error).message);
    }

    if (message.kind === 'LogoutResponse') {
      const request = await state.takeSsoRequest(this.db, tenantId, 'saml-logout', facts.inResponseTo!);
      if (!request) throw new SamlLogoutRejected('InResponseTo names no logout in progress (unknown, answered or expired)');
      if (request.relay_state !== relayState) throw new SamlLogoutRejected('RelayState is not the one the LogoutRequest was sent with');
      return { location: request.return_to, sessionsEnded: 0 };
    }

    if (!profile?.nameID) throw new SamlLogoutRejected('the LogoutRequest names no NameID');
    const fresh = await state.rememberOnce(this.db, {
      tenant_id: tenantId,
      kind: 'saml-logout-request',
      id: facts.id,
      expires_at: new Date(facts.issueInstant.getTime() + MAX_LOGOUT_MESSAGE_AGE_MS + 2 * CLOCK_SKEW_MS),
    });
    if (!fresh) throw new SamlLogoutRejected(`LogoutRequest ${facts.id} was already acted on`);
    const sessionsEnded = await revokeSessionsByProvider(this.db, tenantId, {
      sub: profile.nameID,
      ...(profile.sessionIndex ? { sid: profile.sessionIndex } : {}),
    });
    const location = await saml.getLogoutResponseUrlAsync(profile, relayState ?? '', {}, true);
    return { location, sessionsEnded };
  }

  /** `ifPresent`: passport-saml's own value, from the module loaded with the strategy. */
  private optionsFor(
    { provider, requestId, cache, keys, forMetadata, decryptionKey }: SamlRequestContext,
    ifPresent: SamlConfig['validateInResponseTo'],
  ): SamlConfig {
    const saml: SamlSettings = provider.saml;
    const sp = serviceProviderOf(this.baseUrl, provider.tenantId);
    return {
      entryPoint: saml.ssoUrl,
      issuer: sp.entityId,
      callbackUrl: sp.acsUrl,
      audience: sp.entityId,
      idpCert: saml.certificates,
      idpIssuer: saml.entityId,
      identifierFormat: saml.nameIdFormat,
      wantAssertionsSigned: true,
      wantAuthnResponseSigned: saml.signedResponses,
      acceptedClockSkewMs: CLOCK_SKEW_MS,
      maxAssertionAgeMs: MAX_ASSERTION_AGE_MS,
      validateInResponseTo: ifPresent,
      requestIdExpirationPeriodMs: REQUEST_TTL_S * 1000,
      cacheProvider: cache,
      ...(requestId ? { generateUniqueId: () => requestId } : {}),
      disableRequestedAuthnContext: true,
      signatureAlgorithm: 'sha256',
      digestAlgorithm: 'sha256',
      logoutUrl: saml.sloUrl ?? saml.ssoUrl,
      logoutCallbackUrl: singleLogoutUrlOf(this.baseUrl, provider.tenantId),
      // HTTP-Redirect binding: node-saml adds SigAlg (rsa-sha256) and Signature to the query.
      ...(keys && saml.signAuthnRequests ? { privateKey: keys.signingKey } : {}),
      ...(forMetadata && keys ? { decryptionPvk: keys.decryptionKeys[0]! } : {}),
      ...(decryptionKey ? { decryptionPvk: decryptionKey } : {}),
    };
  }

  private async samlProvider(tenantId: string): Promise<IdentityProvider & { protocol: 'saml' }> {
    const provider = await requireIdentityProvider(this.db, this.secrets, tenantId);
    if (provider.protocol !== 'saml') throw notFound(`Tenant ${tenantId} signs in with OpenID Connect, not SAML`, 'SAML_NOT_CONFIGURED');
    return provider;
  }
}
