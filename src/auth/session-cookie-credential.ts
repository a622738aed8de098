/**
 * The caller of the `sf_session` cookie (src/auth/session-cookie.ts): the same session token a bearer
 * header carries, checked the same way, after the cross-site check an unsafe request needs. A JWT is
 * never accepted from a cookie: only the server sets this cookie, and it sets sessions.
 */
import type { IncomingMessage } from 'node:http';
import { AppError, forbidden } from '../errors.ts';
import { InvalidTokenError, SESSION_TOKEN_PREFIX, type CredentialVerifier } from './credentials.ts';
import type { Principal } from './principal.ts';
import { crossSiteRefusal, sessionCookieOf } from './session-cookie.ts';

/**
 * The request's session cookie holds no valid session (junk, revoked, expired): the caller is
 * anonymous and the answer clears the cookie (`clearCookie` is that Set-Cookie), so such a cookie
 * never locks anybody out (of signing in again, say). Each transport maps it (src/auth/bearer-hook.ts).
 */
export class StaleSessionCookie extends AppError {
  constructor(
    message: string,
    readonly clearCookie: string,
  ) {
    super('UNAUTHENTICATED', message);
    this.name = 'StaleSessionCookie';
  }
}

export interface SessionCookieCheck {
  verifier: CredentialVerifier;
  /** The origin of BASE_URL, the only one whose pages may send unsafe requests with the cookie. */
  allowedOrigin: string;
  /** The Set-Cookie header that removes the cookie, carried by a StaleSessionCookie. */
  clearCookie: string;
}

/**
 * The principal the request's session cookie names; null without the cookie. A cookie that would act
 * for a user on a cross-site unsafe request is FORBIDDEN.
 */
export async function principalFromSessionCookie(req: IncomingMessage, check: SessionCookieCheck): Promise<Principal | null> {
  const token = sessionCookieOf(req);
  if (!token) return null;
  if (!token.startsWith(SESSION_TOKEN_PREFIX)) throw new StaleSessionCookie('the session cookie holds no session', check.clearCookie);
  let principal: Principal;
  try {
    ({ principal } = await check.verifier.verify(token));
  } catch (error) {
    throw error instanceof InvalidTokenError ? new StaleSessionCookie(error.message, check.clearCookie) : error;
  }
  const refusal = crossSiteRefusal(req, check.allowedOrigin);
  if (refusal) throw forbidden(refusal);
  return principal;
}
