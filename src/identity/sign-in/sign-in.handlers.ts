/**
 * openapi/auth.yaml: discovery, registration, password sign-in, sessions, and the SAML and OpenID
 * Connect endpoints. Every way of signing in ends in `signedIn`: the session cookie, then a redirect
 * (single sign-on) or the token in the body (password sign-in).
 */
import type { FastifyReply } from 'fastify';
import type { operations } from '../../../generated/openapi/auth.ts';
import { clearedSessionCookieHeader, replaceCookie, sessionCookieHeader } from '../../auth/session-cookie.ts';
import { findUserById } from '../../users/users.repository.ts';
import type { Database } from '../../db/database.ts';
import { unauthenticated } from '../../errors.ts';
import type { OperationHandlers, ReplyHeaders } from '../../http/openapi-routes.ts';
import type { Services } from '../../services.ts';
import type { Accepted, SignedIn, VerifiedSignIn } from './accounts.service.ts';
import { bindingCookieHeader, bindingOf, clearedBindingCookieHeader, type SignInStart } from './browser-binding.ts';
import { toDiscovery, toSession, toSignedIn, toSignInReport } from './sign-in.representation.ts';

interface SignInOptions {
  baseUrl: string;
  db: Database;
}

/** How long the browser keeps a sign-in's binding cookie: as long as the sign-in may take. */
const SIGN_IN_COOKIE_TTL_S = 10 * 60;

const noSession = () => unauthenticated('This operation needs a session (sign in first; a JWT is not a session)');

export function signInHandlers(
  services: Pick<Services, 'accounts' | 'identityProviders' | 'sessions' | 'saml' | 'oidc'>,
  { baseUrl, db }: SignInOptions,
): OperationHandlers<operations> {
  const { accounts, identityProviders, sessions, saml, oidc } = services;
  const cookie = { secure: new URL(baseUrl).protocol === 'https:' };

  /** Opens the session accounts accepted and sets its cookie: the user signed in. */
  const openSession = async (reply: ReplyHeaders, accepted: Accepted): Promise<SignedIn> => {
    const session = await sessions.createFor(accepted.user, accepted.session);
    const maxAge = Math.max(0, Math.floor((session.record.expires_at.getTime() - Date.now()) / 1000));
    replaceCookie(reply, sessionCookieHeader(session.token, maxAge, cookie));
    // The session token is a credential: no cache may keep a response that carries it.
    reply.header('Cache-Control', 'no-store');
    return { user: accepted.user, session };
  };

  /** The redirect to the provider, with the cookie that binds the sign-in to this browser. */
  const startSignIn = (reply: ReplyHeaders & Pick<FastifyReply, 'redirect'>, { url, binding }: SignInStart) => {
    if (binding) replaceCookie(reply, bindingCookieHeader(binding.value, SIGN_IN_COOKIE_TTL_S, cookie.secure));
    reply.header('Cache-Control', 'no-store');
    return reply.redirect(url, 302);
  };

  /**
   * A provider's callback verified someone (saml.callback, oidc.callback): a test sign-in shows what
   * was received, a real one signs in and sends the browser on, without the binding cookie.
   */
  const finishSignIn = async (reply: ReplyHeaders & Pick<FastifyReply, 'redirect'>, verified: VerifiedSignIn) => {
    if (verified.test) return toSignInReport(await accounts.testSignIn(verified.provider, verified.identity));
    await openSession(reply, await accounts.signInExternal(verified.provider, verified.identity));
    replaceCookie(reply, clearedBindingCookieHeader(cookie.secure));
    return reply.redirect(verified.returnTo, 302);
  };

  return {
    discoverSignIn: async (request) => {
      const { tenantId, enforceSso } = await accounts.tenantOf(request.query.email);
      return toDiscovery(tenantId, enforceSso, await identityProviders.find(tenantId), baseUrl);
    },

    registerLocal: async (request, reply) => {
      const registered = await accounts.register(request.body, request.ip);
      if (registered.kind === 'proof-required') {
        reply.code(202).header('Cache-Control', 'no-store');
        return { status: 'proof-required' as const, sentTo: registered.sentTo, expiresAt: registered.expiresAt.toISOString() };
      }
      return toSignedIn(await openSession(reply.code(201), registered));
    },

    verifyEmail: async (request, reply) => {
      return toSignedIn(await openSession(reply, await accounts.verifyEmail(request.body, request.ip)));
    },

    login: async (request, reply) => {
      return toSignedIn(await openSession(reply, await accounts.login(request.body, request.ip)));
    },

    getSession: async (request) => {
      const principal = request.principal;
      if (!principal?.sessionId) throw noSession();
      const session = await sessions.get(principal.sessionId);
      const user = await findUserById(db, session.user_id);
      if (!user) throw noSession();
      return toSession(session, user, principal);
    },

    logout: async (request, reply) => {
      const sessionId = request.principal?.sessionId;
      if (!sessionId) throw noSession();
      const session = await sessions.get(sessionId);
      // Ended here first, whatever the provider then does (or fails to).
      await sessions.revoke(sessionId);
      replaceCookie(reply, clearedSessionCookieHeader(cookie));
      reply.header('Cache-Control', 'no-store');
      let providerLogoutUrl: string | null = null;
      try {
        if (session.auth_method === 'saml' && session.idp_subject) providerLogoutUrl = await saml.logoutUrl(session);
        else if (session.auth_method === 'oidc') providerLogoutUrl = await oidc.endSessionUrl(session);
      } catch (error) {
        request.log.warn(
          { err: error, tenantId: session.tenant_id },
          'the provider logout URL could not be made; the session is ended here',
        );
      }
      return { providerLogoutUrl };
    },

    samlLogin: async (request, reply) => startSignIn(reply, await saml.loginUrl(request.params.tenantId, request.query.returnTo)),

    samlCallback: async (request, reply) =>
      finishSignIn(reply, await saml.callback(request.params.tenantId, request.body, bindingOf(request.raw))),

    samlSingleLogoutRedirect: async (request, reply) => {
      const rawQuery = request.url.split('?')[1] ?? '';
      const { location } = await saml.singleLogout(request.params.tenantId, 'redirect', request.query, rawQuery);
      reply.header('Cache-Control', 'no-store');
      return reply.redirect(location, 302);
    },

    samlSingleLogoutPost: async (request, reply) => {
      const { location } = await saml.singleLogout(request.params.tenantId, 'post', request.body, '');
      reply.header('Cache-Control', 'no-store');
      return reply.redirect(location, 302);
    },

    samlMetadata: async (request, reply) =>
      reply.type('application/samlmetadata+xml; charset=utf-8').send(await saml.metadata(request.params.tenantId)),

    oidcLogin: async (request, reply) => startSignIn(reply, await oidc.loginUrl(request.params.tenantId, request.query.returnTo)),

    oidcCallback: async (request, reply) => {
      const query = new URLSearchParams(request.url.split('?')[1] ?? '');
      return finishSignIn(reply, await oidc.callback(request.params.tenantId, query, bindingOf(request.raw)));
    },

    oidcBackchannelLogout: async (request, reply) => {
      const sessionsEnded = await oidc.backchannelLogout(request.params.tenantId, request.body.logout_token);
      reply.header('Cache-Control', 'no-store');
      return { sessionsEnded };
    },
  };
}
