/**
 * Headers for the HTML pages the server serves (/docs, /graphiql): a Content-Security-Policy that
 * lets a page run only the scripts and styles it is served with, from this server, and no page
 * of another site frame it; `nosniff` and `X-Frame-Options: DENY` for browsers without CSP level 2.
 */
import { createHash } from 'node:crypto';
import type { FastifyReply } from 'fastify';

interface PagePolicy {
  /** The page's HTML: each inline `<script>` is allowed by its hash, so no other inline script runs. */
  html: string;
  /** `connect-src` sources beyond 'self' (GraphiQL's WebSocket). */
  connect?: readonly string[];
  /** Whether the page's style sheets embed fonts as `data:` URLs (GraphiQL's do); else no fonts. */
  dataFonts?: boolean;
  /** Whether the page may write inline styles (Swagger UI and GraphiQL do; the portal does not). */
  inlineStyles?: boolean;
  /** Origins whose pages may frame this one (the portal's PORTAL_FRAME_ANCESTORS); none by default. */
  frameAncestors?: readonly string[];
}

const INLINE_SCRIPT = /<script(?![^>]*\ssrc=)[^>]*>([\s\S]*?)<\/script>/g;

/** `'sha256-…'` of every inline script's text, exactly as the browser hashes it. */
function inlineScriptHashes(html: string): string[] {
  return [...html.matchAll(INLINE_SCRIPT)].map(([, body]) => `'sha256-${createHash('sha256').update(body!).digest('base64')}'`);
}

/**
 * The policy: nothing by default; scripts, styles and images from this origin; inline styles, which
 * Swagger UI and GraphiQL (CodeMirror) write into the elements they render; `data:` images (and, for
 * GraphiQL, fonts), which their style sheets embed. No plugins, no `<base>`, no framing.
 */
export function contentSecurityPolicy(policy: PagePolicy): string {
  return [
    "default-src 'none'",
    `script-src 'self' ${inlineScriptHashes(policy.html).join(' ')}`.trimEnd(),
    `style-src 'self'${policy.inlineStyles === false ? '' : " 'unsafe-inline'"}`,
    "img-src 'self' data:",
    ...(policy.dataFonts ? ['font-src data:'] : []),
    `connect-src 'self'${(policy.connect ?? []).map((source) => ` ${source}`).join('')}`,
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    `frame-ancestors ${policy.frameAncestors?.length ? policy.frameAncestors.join(' ') : "'none'"}`,
  ].join('; ');
}

/**
 * Sends `html` with its policy and the headers that keep it from being sniffed or framed; a page
 * whose policy lets some origins frame it (`framed`) goes without `X-Frame-Options`, whose DENY
 * would overrule them in browsers that read both.
 */
export function sendPage(reply: FastifyReply, html: string, policy: string, { framed = false }: { framed?: boolean } = {}): FastifyReply {
  reply.type('text/html; charset=utf-8').header('Content-Security-Policy', policy).header('X-Content-Type-Options', 'nosniff');
  if (!framed) reply.header('X-Frame-Options', 'DENY');
  return reply.send(html);
}

/** A host CSP can name: a DNS name or IPv4 address and a port (host-source has no IPv6 literals). */
const CSP_HOST = /^[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*(?::\d{1,5})?$/;

/**
 * The WebSocket URL of `path` on the host the browser asked for (`ws:` under http, `wss:` under
 * https), or undefined for a Host header CSP cannot carry: then 'self' alone, which CSP level 3
 * browsers match against ws(s) of the page's own host too. The Host header is only ever checked
 * against CSP_HOST, so a forged one cannot add a directive.
 */
export function webSocketSource(host: string, protocol: 'http' | 'https', path: string): string | undefined {
  return CSP_HOST.test(host) ? `${protocol === 'https' ? 'wss' : 'ws'}://${host}${path}` : undefined;
}
