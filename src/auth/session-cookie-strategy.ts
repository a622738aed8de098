/**
 * Passport strategy for the `sf_session` cookie (src/auth/session-cookie.ts): the same session token
 * a bearer header carries, checked the same way, after the cross-site check an unsafe request needs.
 * A JWT is never accepted from a cookie: only the server sets this cookie, and it sets sessions.
 */
import type { IncomingMessage } from 'node:http';
import { Strategy } from 'passport-strategy';
import { forbidden } from '../errors.ts';
import { InvalidTokenError, SESSION_TOKEN_PREFIX, type CredentialVerifier } from './credentials.ts';
import { crossSiteRefusal, sessionCookieOf } from './session-cookie.ts';

const SESSION_COOKIE_STRATEGY = 'session-cookie';

export class SessionCookieStrategy extends Strategy {
  name = SESSION_COOKIE_STRATEGY;

  constructor(
    private readonly verifier: CredentialVerifier,
    /** The origin of BASE_URL, the only one whose pages may send unsafe requests with the cookie. */
    private readonly allowedOrigin: string,
  ) {
    super();
  }

  /**
   * A cookie that holds no valid session (junk, revoked, expired) fails here, and the authenticator
   * then treats the request as anonymous and clears the cookie (src/auth/authenticate.ts). The
   * cross-site check applies to a cookie that would act for a user.
   */
  override authenticate(req: IncomingMessage): void {
    const token = sessionCookieOf(req);
    if (!token) return this.pass();
    if (!token.startsWith(SESSION_TOKEN_PREFIX)) return this.fail({ message: 'the session cookie holds no session' }, 401);
    this.verifier.verify(token).then(
      ({ principal }) => {
        const refusal = crossSiteRefusal(req, this.allowedOrigin);
        return refusal ? this.error(forbidden(refusal)) : this.success(principal);
      },
      (error: unknown) => (error instanceof InvalidTokenError ? this.fail({ message: error.message }, 401) : this.error(error as Error)),
    );
  }
}
