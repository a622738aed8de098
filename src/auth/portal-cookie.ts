/**
 * The portal session cookie `sf_portal` (openapi/portal.yaml): HttpOnly, SameSite=Strict (a page of
 * another site never makes the browser send it), Secure over https, path `/`. Read only by the
 * operations that accept a portal session (`x-portal-intent`) and by the portal's own; the other
 * credential readers ignore it.
 */
import type { IncomingMessage } from 'node:http';
import { fastifyCookie } from '@fastify/cookie';

const PORTAL_COOKIE = 'sf_portal';

export function portalCookieOf(req: IncomingMessage): string | null {
  const header = req.headers.cookie;
  if (!header || !header.includes(PORTAL_COOKIE)) return null;
  return fastifyCookie.parse(header)[PORTAL_COOKIE] ?? null;
}

export function portalCookieHeader(token: string, maxAgeS: number, secure: boolean): string {
  return fastifyCookie.serialize(PORTAL_COOKIE, token, { httpOnly: true, sameSite: 'strict', secure, path: '/', maxAge: maxAgeS });
}

export function clearedPortalCookieHeader(secure: boolean): string {
  return fastifyCookie.serialize(PORTAL_COOKIE, '', { httpOnly: true, sameSite: 'strict', secure, path: '/', maxAge: 0 });
}
