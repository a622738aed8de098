/**
 * The portal session's authentication, as an onRequest hook: on the operations that accept a portal
 * session (registerOperations adds it to those with `x-portal-intent`) and on the portal's own
 * routes. A request that already has a caller (a bearer token, the sign-in cookie) keeps it; one
 * with the `sf_portal` cookie of a live session gets the portal principal; anything else stays
 * anonymous, and the operation's security answers.
 */
import type { onRequestHookHandler } from 'fastify';
import type { Authenticator } from './authenticate.ts';
import { portalCookieOf } from './portal-cookie.ts';

export function portalAuthentication(authenticate: Authenticator): onRequestHookHandler {
  return (request, _reply, done) => {
    if (request.principal || portalCookieOf(request.raw) === null) return done();
    authenticate(request.raw).then(
      (principal) => {
        request.principal = principal;
        done();
      },
      (error: unknown) => done(error as Error),
    );
  };
}
