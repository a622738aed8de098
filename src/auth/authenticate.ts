/**
 * Resolves the caller of a request through its passport strategies: an `Authorization: Bearer`
 * header, else the session cookie. Anonymous requests yield null; an invalid bearer credential is an
 * UNAUTHENTICATED error, a cookie on a cross-site unsafe request FORBIDDEN, mapped by each transport. A session
 * cookie that holds no valid session is a StaleSessionCookie: the caller is anonymous and the answer
 * clears the cookie, so a revoked or junk cookie never locks anybody out (of signing in again, say).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { AppError, unauthenticated } from '../errors.ts';
import { BearerStrategy } from './bearer-strategy.ts';
import type { CredentialVerifier } from './credentials.ts';
import type { Principal } from './principal.ts';
import { clearedSessionCookieHeader, sessionCookieOf } from './session-cookie.ts';
import { runStrategy } from './run-strategy.ts';
import { SessionCookieStrategy } from './session-cookie-strategy.ts';

export type Authenticator = (req: IncomingMessage, res?: ServerResponse) => Promise<Principal | null>;

/** The request's session cookie holds no valid session; `clearCookie` is the Set-Cookie that removes it. */
export class StaleSessionCookie extends AppError {
  constructor(
    message: string,
    readonly clearCookie: string,
  ) {
    super('UNAUTHENTICATED', message);
    this.name = 'StaleSessionCookie';
  }
}

/** Whether the request carries a credential at all (so that anonymous requests skip passport). */
export function carriesCredential(req: IncomingMessage): boolean {
  return Boolean(req.headers.authorization) || sessionCookieOf(req) !== null;
}

export function createAuthenticator(verifier: CredentialVerifier, options: { allowedOrigin: string }): Authenticator {
  const clearCookie = clearedSessionCookieHeader({ secure: options.allowedOrigin.startsWith('https:') });
  const bearer = new BearerStrategy(verifier);
  const cookie = new SessionCookieStrategy(verifier, options.allowedOrigin);
  // The strategies run through runStrategy, not a passport middleware built for every request (what
  // passport.authenticate() does): the same decisions, without a closure and a dispatch per request.
  return async (req) => {
    // The header wins: a client that sends one means it, whatever cookie the browser adds.
    const byHeader = Boolean(req.headers.authorization);
    const outcome = await runStrategy<Principal>(byHeader ? bearer : cookie, req);
    if (outcome.kind === 'success') return outcome.user;
    if (outcome.kind === 'pass') return null;
    if (outcome.kind === 'redirect') throw new Error('a credential strategy asked for a redirect');
    throw byHeader ? unauthenticated(outcome.message) : new StaleSessionCookie(outcome.message, clearCookie);
  };
}
