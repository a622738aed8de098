/**
 * Binds a sign-in to the browser that started it (login CSRF): starting a sign-in sets a short-lived
 * HttpOnly cookie holding a random value, whose SHA-256 the sign-in in flight keeps; the callback is
 * accepted only from a browser that brings the cookie back. Without it, an attacker could start a
 * sign-in of their own, complete it at the provider, and have a victim's browser deliver the answer
 * (an auto-submitted SAML form, an OIDC redirect): the victim would be signed in as the attacker.
 *
 * The SAML answer is a form the provider's page posts to us: a cross-site POST, which carries only
 * a `SameSite=None` cookie, and browsers keep those only with `Secure`. So over https the cookie is
 * `SameSite=None; Secure`; over plain http (development on localhost) `SameSite=Lax`.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { fastifyCookie } from '@fastify/cookie';

const SIGN_IN_COOKIE = 'sf_signin';

/** Where to send the browser to sign in, and the binding to set as its cookie (null: none, a test sign-in). */
export interface SignInStart {
  url: string;
  binding: BrowserBinding | null;
}

export interface BrowserBinding {
  /** The cookie's value, to set in the browser. */
  value: string;
  /** What the sign-in in flight keeps. */
  digest: string;
}

const digestOf = (value: string) => createHash('sha256').update(value).digest('hex');

export function newBinding(): BrowserBinding {
  const value = randomBytes(24).toString('base64url');
  return { value, digest: digestOf(value) };
}

export function bindingCookieHeader(value: string, maxAgeS: number, secure: boolean): string {
  return fastifyCookie.serialize(SIGN_IN_COOKIE, value, {
    httpOnly: true,
    secure,
    sameSite: secure ? 'none' : 'lax',
    path: '/auth/',
    maxAge: maxAgeS,
  });
}

export function clearedBindingCookieHeader(secure: boolean): string {
  return fastifyCookie.serialize(SIGN_IN_COOKIE, '', {
    httpOnly: true,
    secure,
    sameSite: secure ? 'none' : 'lax',
    path: '/auth/',
    maxAge: 0,
  });
}

/** The binding cookie the request brings, or null. */
export function bindingOf(req: IncomingMessage): string | null {
  const header = req.headers.cookie;
  if (!header || !header.includes(SIGN_IN_COOKIE)) return null;
  return fastifyCookie.parse(header)[SIGN_IN_COOKIE] || null;
}

/** Whether the browser's cookie value matches the digest the sign-in kept. */
export function bindingMatches(cookie: string | null, digest: string | null): boolean {
  if (!cookie || !digest) return false;
  return timingSafeEqual(Buffer.from(digestOf(cookie)), Buffer.from(digest));
}
