/**
 * The caller of `Authorization: Bearer <token>`, a session token or a JWT (src/auth/credentials.ts).
 * A request without the header is anonymous; a header of another shape, or a bad, expired or revoked
 * token, is UNAUTHENTICATED (401), so clients learn their credential is no longer good.
 */
import type { IncomingMessage } from 'node:http';
import { unauthenticated } from '../errors.ts';
import { InvalidTokenError, type CredentialVerifier } from './credentials.ts';
import type { Principal } from './principal.ts';

/** The token of an `Authorization: Bearer <token>` value, or null when the value has another shape. */
export function bearerToken(header: string): string | null {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match ? match[1]! : null;
}

/** The principal the request's bearer token names; null without an Authorization header. */
export async function principalFromBearer(req: IncomingMessage, verifier: CredentialVerifier): Promise<Principal | null> {
  const header = req.headers.authorization;
  if (!header) return null;
  const token = bearerToken(header);
  if (!token) throw unauthenticated('Authorization header must be "Bearer <token>"');
  try {
    return (await verifier.verify(token)).principal;
  } catch (error) {
    throw error instanceof InvalidTokenError ? unauthenticated(error.message) : error;
  }
}
