/**
 * Where a browser goes after signing in (`returnTo`, a SAML relay state of an unsolicited response):
 * only somewhere on this server, so sign-in can never be made an open redirect.
 */
import { validationFailed } from '../../errors.ts';

export const invalidReturnTo = () =>
  validationFailed([{ field: ['returnTo'], message: 'must be a path on this server', source: 'parameter' }]);

/**
 * The path to send the browser to, or null when `value` leads anywhere but this server. The check is
 * made on the value that is used, after the URL parser has normalised it: `/.//evil.example` and
 * `/%2e%2e//evil.example` are paths of this server as written, and `//evil.example` once normalised.
 */
export function safeReturnTo(value: string | null | undefined, baseUrl: string): string | null {
  if (value === undefined || value === null || value === '') return '/';
  const base = new URL(baseUrl);
  let url: URL;
  try {
    url = value.startsWith('/') ? new URL(value, base) : new URL(value);
  } catch {
    return null;
  }
  if (url.origin !== base.origin) return null;
  const target = `${url.pathname}${url.search}${url.hash}`;
  // `//host` and `/\host` are protocol-relative to browsers: they leave this server.
  return /^\/[/\\]/.test(target) || /^\/[/\\]/.test(value) ? null : target;
}
