/**
 * Resolves the caller of a request through passport: an `Authorization: Bearer` header, else the
 * session cookie. Anonymous requests yield null; an invalid bearer credential is an UNAUTHENTICATED
 * error, a cookie on a cross-site unsafe request FORBIDDEN, mapped by each transport. A session
 * cookie that holds no valid session is a StaleSessionCookie: the caller is anonymous and the answer
 * clears the cookie, so a revoked or junk cookie never locks anybody out (of signing in again, say).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import passport from 'passport';
import { AppError, unauthenticated } from '../errors.ts';
import { BEARER, BearerStrategy } from './bearer-strategy.ts';
import type { CredentialVerifier } from './credentials.ts';
import type { Principal } from './principal.ts';
import { clearedSessionCookieHeader, sessionCookieOf } from './session-cookie.ts';
import { SESSION_COOKIE_STRATEGY, SessionCookieStrategy } from './session-cookie-strategy.ts';

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
  const instance = new passport.Passport();
  instance.use(new BearerStrategy(verifier));
  instance.use(new SessionCookieStrategy(verifier, options.allowedOrigin));
  return (req, res) =>
    new Promise((resolve, reject) => {
      // The header wins: a client that sends one means it, whatever cookie the browser adds.
      const strategy = req.headers.authorization ? BEARER : SESSION_COOKIE_STRATEGY;
      // @types/passport types the middleware as `any`; this is the connect-style function it returns.
      const middleware = instance.authenticate(
        strategy,
        { session: false },
        (error: Error | null, user: Principal | false, info: { message?: string } | undefined) => {
          const message = info?.message ?? 'Invalid credentials';
          if (error) reject(error);
          else if (!user) reject(strategy === BEARER ? unauthenticated(message) : new StaleSessionCookie(message, clearCookie));
          else resolve(user);
        },
      ) as (req: IncomingMessage, res: ServerResponse | undefined, next: (error?: Error) => void) => void;
      // passport calls `next` when the strategy passes (no credentials at all).
      middleware(req, res, (error?: Error) => (error ? reject(error) : resolve(null)));
    });
}
