/**
 * Where a browser goes after signing in (`returnTo`, a SAML relay state of an unsolicited response):
 * only somewhere on this server, so sign-in can never be made an open redirect.
 */
import { validationFailed } from '../../errors.ts';

export const invalidReturnTo = () =>
  validationFailed([{ field: ['returnTo'], message: 'must be a path on this server', source: 'parameter' }]);

export function safeReturnTo(value: string | null | undefined, baseUrl: string): string | null {
  if (value === undefined || value === null || value === '') return '/';
  const base = new URL(baseUrl);
  // `//host` and `/\host` are protocol-relative to browsers: refused, like absolute URLs elsewhere.
  if (value.startsWith('/') && !value.startsWith('//') && !value.startsWith('/\\')) {
    const url = new URL(value, base);
    return url.origin === base.origin ? `${url.pathname}${url.search}${url.hash}` : null;
  }
  try {
    const url = new URL(value);
    return url.origin === base.origin ? `${url.pathname}${url.search}${url.hash}` : null;
  } catch {
    return null;
  }
}
