/**
 * Resolves the caller of a request through passport. Anonymous requests yield null; a present but
 * invalid credential is an UNAUTHENTICATED error, mapped by each transport.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import passport from 'passport';
import { unauthenticated } from '../errors.ts';
import { BEARER, BearerStrategy } from './bearer-strategy.ts';
import type { CredentialVerifier } from './credentials.ts';
import type { Principal } from './principal.ts';

export type Authenticator = (req: IncomingMessage, res?: ServerResponse) => Promise<Principal | null>;

export function createAuthenticator(verifier: CredentialVerifier): Authenticator {
  const instance = new passport.Passport();
  instance.use(new BearerStrategy(verifier));
  return (req, res) =>
    new Promise((resolve, reject) => {
      // @types/passport types the middleware as `any`; this is the connect-style function it returns.
      const middleware = instance.authenticate(
        BEARER,
        { session: false },
        (error: Error | null, user: Principal | false, info: { message?: string } | undefined) => {
          if (error) reject(error);
          else if (!user) reject(unauthenticated(info?.message ?? 'Invalid credentials'));
          else resolve(user);
        },
      ) as (req: IncomingMessage, res: ServerResponse | undefined, next: (error?: Error) => void) => void;
      // passport calls `next` when the strategy passes (no credentials at all).
      middleware(req, res, (error?: Error) => (error ? reject(error) : resolve(null)));
    });
}
