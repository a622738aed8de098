/**
 * Resolves the caller of a request: an `Authorization: Bearer` header (bearer-credential.ts), else
 * the session cookie (session-cookie-credential.ts). Anonymous requests yield null; an invalid bearer
 * credential is an UNAUTHENTICATED error, a cookie on a cross-site unsafe request FORBIDDEN, a cookie
 * that holds no valid session a StaleSessionCookie, each mapped by its transport.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { principalFromBearer } from './bearer-credential.ts';
import type { CredentialVerifier } from './credentials.ts';
import type { Principal } from './principal.ts';
import { clearedSessionCookieHeader, sessionCookieOf } from './session-cookie.ts';
import { principalFromSessionCookie } from './session-cookie-credential.ts';

export type Authenticator = (req: IncomingMessage, res?: ServerResponse) => Promise<Principal | null>;

/** Whether the request carries a credential at all (so that anonymous requests skip the readers). */
export function carriesCredential(req: IncomingMessage): boolean {
  return Boolean(req.headers.authorization) || sessionCookieOf(req) !== null;
}

export function createAuthenticator(verifier: CredentialVerifier, options: { allowedOrigin: string }): Authenticator {
  const cookie = {
    verifier,
    allowedOrigin: options.allowedOrigin,
    clearCookie: clearedSessionCookieHeader({ secure: options.allowedOrigin.startsWith('https:') }),
  };
  // The header wins: a client that sends one means it, whatever cookie the browser adds.
  return (req) => (req.headers.authorization ? principalFromBearer(req, verifier) : principalFromSessionCookie(req, cookie));
}
