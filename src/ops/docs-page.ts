/**
 * The API reference at `GET /docs`: every published OpenAPI document (/openapi/<name>.json) in
 * Swagger UI, one document at a time with a selector, each operation with its parameters, examples
 * and a "try it out" against this server; the page links the GraphQL schema printout and GraphiQL.
 * On outside production by default (`DOCS`), like GraphiQL. Swagger UI is served from the installed
 * `swagger-ui-dist` package (no dependencies of its own at run time, no CDN), so the page works
 * offline and its version is the one in package-lock.json. `?document=<name>` opens a document.
 * The nav bar's "Webhook events" opens the webhooks document at its `webhooks` section (the event
 * catalog: each event type with its body schema and examples), which Swagger UI renders under a
 * "Webhooks" heading after the document's operations: `#webhooks` scrolls there once it is drawn.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { documentNames } from '../../generated/openapi/index.ts';
import { contentSecurityPolicy, sendPage } from '../http/page-security.ts';
import { problem } from '../http/problem.ts';
import { DOCS_PROSE_PLUGIN } from './docs-prose.ts';

const require = createRequire(import.meta.url);

/** What the page loads, by the name it is served under /docs/assets/. */
const ASSETS: Record<string, string> = {
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'text/javascript; charset=utf-8',
  'swagger-ui.css': 'text/css; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

/** Reading order on the page: the product-facing APIs first, operations last. */
const ORDER = ['rest-v1', 'rest-v2', 'posts', 'auth', 'scim', 'webhooks', 'admin', 'ops'];

function page(names: readonly string[], links: { graphiql: boolean; schema: boolean }): string {
  const sorted = [...names].sort((a, b) => (ORDER.indexOf(a) + 1 || 99) - (ORDER.indexOf(b) + 1 || 99));
  const urls = sorted.map((name) => ({ name, url: `/openapi/${name}.json` }));
  const nav = [
    ...(links.schema ? ['<a href="/graphql/schema">GraphQL schema (SDL)</a>'] : []),
    ...(links.graphiql ? ['<a href="/graphiql">GraphiQL explorer</a>'] : []),
    '<a href="/openapi">OpenAPI documents (JSON, YAML)</a>',
    ...(names.includes('webhooks') ? ['<a href="/docs?document=webhooks#webhooks">Webhook events</a>'] : []),
  ].join(' · ');
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <title>API reference · schemaforge</title>
    <link rel="icon" type="image/png" href="/docs/assets/favicon-32x32.png" />
    <link rel="stylesheet" href="/docs/assets/swagger-ui.css" />
    <style>
      body { margin: 0; }
      nav.sf { font: 14px/1.4 sans-serif; padding: 8px 20px; background: #1b1b1b; color: #ddd; }
      nav.sf a { color: #8fd14f; }
      /* The folded prose (docs-prose.ts): a compact line under the title until opened. */
      .swagger-ui .information-container .info { margin: 24px 0 8px; }
      .sf-about { margin: 0 0 16px; font: 14px/1.5 sans-serif; color: #3b4151; }
      .sf-about > summary { cursor: pointer; font-weight: 600; }
    </style>
  </head>
  <body>
    <nav class="sf">schemaforge API reference · ${nav}</nav>
    <div id="swagger-ui"></div>
    <script src="/docs/assets/swagger-ui-bundle.js"></script>
    <script src="/docs/assets/swagger-ui-standalone-preset.js"></script>
    <script>${DOCS_PROSE_PLUGIN}
      const urls = ${JSON.stringify(urls)};
      const wanted = new URLSearchParams(location.search).get('document');
      const toWebhooks = location.hash === '#webhooks';
      window.ui = SwaggerUIBundle({
        urls,
        'urls.primaryName': urls.some((u) => u.name === wanted) ? wanted : urls[0].name,
        dom_id: '#swagger-ui',
        deepLinking: true,
        presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
        plugins: [ProseAfterOperationsPlugin],
        layout: 'StandaloneLayout',
        validatorUrl: null,
        displayOperationId: true,
        defaultModelsExpandDepth: 0,
        tryItOutEnabled: false,
        queryConfigEnabled: false,
      });
      // The event catalog sits below the document's operations: #webhooks scrolls to it once drawn,
      // and again while the page is still being laid out (for 1.5 s after it appears).
      if (toWebhooks) {
        const root = document.getElementById('swagger-ui');
        let found = false;
        const seek = new MutationObserver(() => {
          const section = root.querySelector('.webhooks');
          if (!section) return;
          section.scrollIntoView();
          if (!found) setTimeout(() => seek.disconnect(), 1500);
          found = true;
        });
        seek.observe(root, { childList: true, subtree: true });
      }
    </script>
  </body>
</html>
`;
}

export function registerDocsPage(app: FastifyInstance, links: { graphiql: boolean; schema: boolean }): void {
  const dir = path.dirname(require.resolve('swagger-ui-dist/package.json'));
  const files = new Map(Object.entries(ASSETS).map(([name, type]) => [name, { body: fs.readFileSync(path.join(dir, name)), type }]));
  const html = page(documentNames, links);
  // Swagger UI fetches the documents from /openapi on this server and nothing from anywhere else.
  const policy = contentSecurityPolicy({ html });
  app.get('/docs', async (_request, reply) => sendPage(reply, html, policy));
  // The server's root has nothing of its own: someone opening it in a browser wants the reference.
  app.get('/', async (_request, reply) => reply.redirect('/docs', 302));
  app.get<{ Params: { name: string } }>('/docs/assets/:name', async (request, reply) => {
    const file = files.get(request.params.name);
    if (!file) {
      return reply
        .code(404)
        .type('application/problem+json')
        .send(problem('not-found', `No documentation asset ${request.params.name}`, request.url));
    }
    return reply.type(file.type).header('Cache-Control', 'public, max-age=86400').send(file.body);
  });
}
