/**
 * The portal page (`GET /portal`) and its two assets: packages/portal (Preact over the SDK's clients,
 * decision 212) bundled by esbuild into one script and one style sheet, named by their content's
 * hash so browsers keep them for a year. Built on the first request for the page, once per process
 * (about 150 ms), so starting a server costs nothing; the entry is resolved at registration, so a
 * missing package fails the start. The page runs under the strictest policy the server serves: no
 * inline script or style at all, and framed only by the origins PORTAL_FRAME_ANCESTORS names.
 */
import { build } from 'esbuild';
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import type { FastifyInstance } from 'fastify';
import { contentSecurityPolicy, sendPage } from '../http/page-security.ts';
import { problem } from '../http/problem.ts';

const require = createRequire(import.meta.url);

interface Asset {
  name: string;
  type: string;
  body: Buffer;
}

interface Bundle {
  html: string;
  assets: Map<string, Asset>;
}

/** `portal-<hash>.js`: the content's first 12 hex digits of SHA-256. */
function hashed(base: string, extension: string, body: Buffer): string {
  return `${base}-${createHash('sha256').update(body).digest('hex').slice(0, 12)}.${extension}`;
}

async function bundle(entry: string): Promise<Bundle> {
  const { outputFiles } = await build({
    entryPoints: { portal: entry },
    bundle: true,
    format: 'esm',
    minify: true,
    target: 'es2020',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    legalComments: 'none',
    logLevel: 'silent',
    outdir: 'out',
    write: false,
  });
  const file = (extension: string) => Buffer.from(outputFiles.find((f) => f.path.endsWith(`.${extension}`))!.contents);
  const script = { name: hashed('portal', 'js', file('js')), type: 'text/javascript', body: file('js') };
  const style = { name: hashed('portal', 'css', file('css')), type: 'text/css', body: file('css') };
  const html = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <meta name="referrer" content="no-referrer" />
    <title>Administration portal</title>
    <link rel="stylesheet" href="/portal/assets/${style.name}" />
    <script type="module" src="/portal/assets/${script.name}"></script>
  </head>
  <body class="portal-page">
    <div id="portal"><noscript><p>The administration portal needs JavaScript.</p></noscript></div>
  </body>
</html>
`;
  return { html, assets: new Map([script, style].map((asset) => [asset.name, asset])) };
}

export function registerPortalPage(app: FastifyInstance, { frameAncestors }: { frameAncestors: readonly string[] }): void {
  // The workspace package, found as any dependency is (from src/ and from the compiled dist/ alike).
  const entry = require.resolve('@schemaforge/portal/page');
  let built: Promise<Bundle> | undefined;
  const current = () =>
    (built ??= bundle(entry).catch((error: unknown) => {
      built = undefined; // not kept: the next request tries again
      throw error;
    }));
  app.get('/portal', async (_request, reply) => {
    const { html } = await current();
    const policy = contentSecurityPolicy({ html, inlineStyles: false, frameAncestors });
    // The page carries no data of its own, but a link's fragment lands here: never cache the page.
    reply.header('Cache-Control', 'no-store');
    return sendPage(reply, html, policy, { framed: frameAncestors.length > 0 });
  });
  app.get<{ Params: { name: string } }>('/portal/assets/:name', async (request, reply) => {
    const asset = (await current()).assets.get(request.params.name);
    if (!asset)
      return reply
        .code(404)
        .type('application/problem+json')
        .send(problem('not-found', `No portal asset ${request.params.name}`, request.url));
    return reply.type(`${asset.type}; charset=utf-8`).header('Cache-Control', 'public, max-age=31536000, immutable').send(asset.body);
  });
}
