/**
 * HS256 bearer tokens. The same functions sign (npm run token, tests) and verify (the server, through
 * src/auth/credentials.ts, which also checks the subject against the stored users).
 */
import { createSecretKey, type KeyObject } from 'node:crypto';
import { jwtVerify, SignJWT, errors as joseErrors } from 'jose';

interface TokenOptions {
  sub: string;
  roles?: string[];
  /** Seconds until expiry; defaults to one hour. */
  expiresIn?: number;
  extraClaims?: Record<string, unknown>;
}

interface TokenClaims {
  sub: string;
  roles: string[];
  /** Null for a token without `exp` (accepted, as before sessions existed). */
  expiresAt: Date | null;
}

const encoder = new TextEncoder();

/**
 * The HMAC key of a secret, made once: handed bytes, jose would import the key again on every
 * verification (a measurable share of an authenticated request).
 */
const keys = new Map<string, KeyObject>();
function keyOf(secret: string): KeyObject {
  let key = keys.get(secret);
  if (!key) {
    key = createSecretKey(encoder.encode(secret));
    keys.set(secret, key);
  }
  return key;
}

export async function signToken(secret: string, options: TokenOptions): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ roles: options.roles ?? [], ...options.extraClaims })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(options.sub)
    .setIssuedAt(now)
    .setExpirationTime(now + (options.expiresIn ?? 3600))
    .sign(encoder.encode(secret));
}

export class InvalidTokenError extends Error {}

export async function verifyTokenClaims(secret: string, token: string): Promise<TokenClaims> {
  try {
    const { payload } = await jwtVerify(token, keyOf(secret), { algorithms: ['HS256'] });
    if (typeof payload.sub !== 'string' || payload.sub === '') throw new InvalidTokenError('token has no subject');
    const roles = Array.isArray(payload.roles) ? payload.roles.filter((r): r is string => typeof r === 'string') : [];
    return { sub: payload.sub, roles, expiresAt: typeof payload.exp === 'number' ? new Date(payload.exp * 1000) : null };
  } catch (error) {
    if (error instanceof InvalidTokenError) throw error;
    if (error instanceof joseErrors.JWTExpired) throw new InvalidTokenError('token expired');
    throw new InvalidTokenError('token is invalid');
  }
}
