/**
 * The bearer-token (or session cookie) authentication of a scope: an onRequest hook each area registers in its own
 * plugin (another area, SCIM for one, registers its own scheme instead). It sets `request.principal`;
 * a present but invalid token fails the request with UNAUTHENTICATED, answered by the scope's error
 * handler. Whether an operation needs a caller at all is the operation's business (its `security`).
 */
import type { onRequestHookHandler } from 'fastify';
import { carriesCredential, type Authenticator } from './authenticate.ts';
import { StaleSessionCookie } from './session-cookie-credential.ts';

export function bearerAuthentication(authenticate: Authenticator): onRequestHookHandler {
  // Runs on every request of the scope, so it takes Fastify's callback form (no promise for the
  // hook itself), and a request with neither an Authorization header nor the session cookie is
  // anonymous without reading any credential.
  return (request, reply, done) => {
    if (!carriesCredential(request.raw)) return done();
    authenticate(request.raw).then(
      (principal) => {
        request.principal = principal;
        done();
      },
      (error: unknown) => {
        // A cookie with no valid session counts as no cookie (operations that need a caller then
        // answer 401 as for anyone anonymous), and the answer removes it from the browser.
        if (!(error instanceof StaleSessionCookie)) return done(error as Error);
        reply.header('Set-Cookie', error.clearCookie);
        done();
      },
    );
  };
}
