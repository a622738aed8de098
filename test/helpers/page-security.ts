/**
 * Browser-side checks of the HTML pages' Content-Security-Policy: the headers a page is served with,
 * and every CSP violation the page reports while a test uses it. A page the policy breaks shows up
 * as a violation here, even when the page still limps along.
 */
import type { Page } from 'playwright-core';

/**
 * Collects the violations the page reports, from the `securitypolicyviolation` event (logged to the
 * console by an init script) and Chromium's own console message ("…violates the following Content
 * Security Policy directive…"). Call before the page is opened.
 */
export async function watchCspViolations(page: Page): Promise<string[]> {
  const violations: string[] = [];
  // A string, not a function: it runs in the page (the DOM types are not in this project's lib).
  await page.addInitScript({
    content: `document.addEventListener('securitypolicyviolation', (event) =>
      console.error('Content Security Policy violation: ' + event.violatedDirective + ' blocked ' + (event.blockedURI || 'inline')));`,
  });
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
  });
  return violations;
}

/** Sources any directive may name: this origin, nothing, an inline script by its hash. */
const OWN_SOURCE = /^(?:'self'|'none'|'sha256-[A-Za-z0-9+/]+={0,2}')$/;
/** Beyond OWN_SOURCE, per directive: what Swagger UI and GraphiQL need and nothing from elsewhere. */
const ALSO_ALLOWED: Record<string, string[]> = { 'style-src': ["'unsafe-inline'"], 'img-src': ['data:'], 'font-src': ['data:'] };

/**
 * What is wrong with a page's security headers (empty when nothing): a policy that names anything but
 * this origin (`extra` lists the sources a page may add, GraphiQL's WebSocket URL), allows eval or
 * any inline script, or lacks `default-src`, `object-src`, `base-uri` or `frame-ancestors` 'none';
 * no `nosniff`; no `X-Frame-Options: DENY`.
 */
export function pageSecurityProblems(headers: Record<string, string>, extra: Record<string, string[]> = {}): string[] {
  const policy = headers['content-security-policy'] ?? '';
  const directives = new Map(
    policy
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .filter(([name]) => name)
      .map(([name, ...sources]) => [name!, sources]),
  );
  const problems: string[] = [];
  if (!policy) problems.push('no Content-Security-Policy header');
  for (const [name, sources] of directives) {
    const allowed = [...(ALSO_ALLOWED[name] ?? []), ...(extra[name] ?? [])];
    for (const source of sources)
      if (!OWN_SOURCE.test(source) && !allowed.includes(source)) problems.push(`${name} allows ${source}: ${policy}`);
  }
  for (const name of ['default-src', 'object-src', 'base-uri', 'frame-ancestors'])
    if (directives.get(name)?.join(' ') !== "'none'") problems.push(`${name} is not 'none': ${policy}`);
  if (!directives.get('script-src')?.includes("'self'")) problems.push(`script-src lacks 'self': ${policy}`);
  if (headers['x-content-type-options'] !== 'nosniff') problems.push('no X-Content-Type-Options: nosniff');
  if (headers['x-frame-options'] !== 'DENY') problems.push('no X-Frame-Options: DENY');
  return problems;
}
