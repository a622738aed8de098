/**
 * The session cookie single sign-on and password sign-in set, and the check that makes a request
 * authenticated by it safe from cross-site request forgery (decision 90).
 *
 * A browser attaches the cookie to requests other sites make it send, so an unsafe request (POST,
 * PUT, PATCH, DELETE: every mutation, GraphQL's included) authenticated by the cookie alone must
 * prove it comes from a page of this server: its `Origin` header (sent by every browser on such
 * requests), or failing that its `Referer`, must be the origin of BASE_URL. Requests carrying an
 * `Authorization` header need no check: a site cannot make a browser add one.
 */
import type { IncomingMessage } from 'node:http';
import { fastifyCookie } from '@fastify/cookie';
import type { FastifyReply } from 'fastify';

const SESSION_COOKIE = 'sf_session';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The session token in the request's cookie, or null. */
export function sessionCookieOf(req: IncomingMessage): string | null {
  const header = req.headers.cookie;
  if (!header || !header.includes(SESSION_COOKIE)) return null;
  return fastifyCookie.parse(header)[SESSION_COOKIE] ?? null;
}

/** Null when the request may act on its cookie; otherwise why not. */
export function crossSiteRefusal(req: IncomingMessage, allowedOrigin: string): string | null {
  if (SAFE_METHODS.has(req.method ?? 'GET')) return null;
  const origin = req.headers.origin;
  if (typeof origin === 'string' && origin !== 'null') {
    return origin === allowedOrigin ? null : `a request from ${origin} may not use the session cookie`;
  }
  const referer = req.headers.referer;
  if (typeof referer === 'string') {
    try {
      if (new URL(referer).origin === allowedOrigin) return null;
    } catch {
      // not a URL: refused below
    }
  }
  return 'a request authenticated by the session cookie must carry an Origin header of this server (or use Authorization: Bearer)';
}

interface CookieOptions {
  /** Secure whenever BASE_URL is https. */
  secure: boolean;
}

export function sessionCookieHeader(token: string, maxAgeS: number, { secure }: CookieOptions): string {
  return fastifyCookie.serialize(SESSION_COOKIE, token, { httpOnly: true, sameSite: 'lax', secure, path: '/', maxAge: maxAgeS });
}

export function clearedSessionCookieHeader({ secure }: CookieOptions): string {
  return fastifyCookie.serialize(SESSION_COOKIE, '', { httpOnly: true, sameSite: 'lax', secure, path: '/', maxAge: 0 });
}

/**
 * Sets the `Set-Cookie` header `header` for the cookie it names, replacing any earlier one for that
 * cookie on this reply (the clearing of a stale session cookie, say) and keeping the others.
 */
export function replaceCookie(
  reply: Pick<FastifyReply, 'getHeader' | 'removeHeader'> & { header(key: string, value: unknown): unknown },
  header: string,
): void {
  const name = header.slice(0, header.indexOf('='));
  const existing = reply.getHeader('set-cookie');
  const kept = (Array.isArray(existing) ? existing : existing === undefined ? [] : [String(existing)]).filter(
    (cookie) => !cookie.startsWith(`${name}=`),
  );
  reply.removeHeader('set-cookie');
  reply.header('Set-Cookie', [...kept, header]);
}
