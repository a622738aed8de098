/**
 * The schema printout (`GET /graphql/schema`, the SDL exactly as written in schema/) and the GraphiQL
 * explorer (`GET /graphiql`), each only when configuration enables it (on outside production).
 * GraphiQL, React and the graphql-ws client are served from the installed npm packages, never from
 * a CDN, so the explorer works offline and its version is the one in package-lock.json. It runs
 * queries and mutations over HTTP and subscriptions over the WebSocket on /graphql. The page also
 * loads graphql's own parser from the installed `graphql` package, bundled into one module (see the page).
 */
import { build } from 'esbuild';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { typeDefs } from '../../generated/graphql/typedefs.ts';
import { contentSecurityPolicy, sendPage, webSocketSource } from '../http/page-security.ts';
import { problem } from '../http/problem.ts';
import { EXAMPLE_QUERY } from './explorer-example.ts';

const require = createRequire(import.meta.url);

/** Every file the explorer page loads, by the name it is served under /graphiql/assets/. */
const ASSETS: Record<string, { pkg: string; file: string; type: string }> = {
  'react.production.min.js': { pkg: 'react', file: 'umd/react.production.min.js', type: 'text/javascript' },
  'react-dom.production.min.js': { pkg: 'react-dom', file: 'umd/react-dom.production.min.js', type: 'text/javascript' },
  'graphiql.min.js': { pkg: 'graphiql', file: 'graphiql.min.js', type: 'text/javascript' },
  'graphiql.min.css': { pkg: 'graphiql', file: 'graphiql.min.css', type: 'text/css' },
  'graphql-ws.min.js': { pkg: 'graphql-ws', file: 'umd/graphql-ws.min.js', type: 'text/javascript' },
};

/** A file inside an installed package; the UMD builds are not in the packages' `exports` maps. */
function packageFile(pkg: string, file: string): Buffer {
  return fs.readFileSync(path.join(path.dirname(require.resolve(`${pkg}/package.json`)), file));
}

const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <title>GraphiQL · schemaforge</title>
    <link rel="stylesheet" href="/graphiql/assets/graphiql.min.css" />
    <style>html, body, #graphiql { height: 100%; margin: 0; }</style>
  </head>
  <body>
    <div id="graphiql">Loading…</div>
    <script src="/graphiql/assets/react.production.min.js"></script>
    <script src="/graphiql/assets/react-dom.production.min.js"></script>
    <script src="/graphiql/assets/graphiql.min.js"></script>
    <script src="/graphiql/assets/graphql-ws.min.js"></script>
    <script type="module">
      import { parse } from '/graphiql/assets/graphql-parser.mjs';
      const url = new URL('/graphql', location.href).toString();
      const wsUrl = url.replace(/^http/, 'ws');
      // Queries and mutations go over HTTP with the headers of GraphiQL's headers editor;
      // subscriptions over graphql-ws on the same path, where the server reads the principal from
      // the connection_init payload, so each distinct Authorization header gets its own lazy
      // WebSocket client (connected while a subscription runs) that sends it there.
      const fetchers = new Map();
      function authorizationOf(headers) {
        const key = Object.keys(headers || {}).find((name) => name.toLowerCase() === 'authorization');
        return key ? String(headers[key]) : '';
      }
      // GraphiQL picks HTTP or the WebSocket from the document it parsed after the last edit, 100 ms
      // late (a debounce): run right after an edit, a subscription would go over HTTP and be refused.
      // So the text actually being sent is parsed here; a text that does not parse goes over HTTP,
      // whose answer names the syntax error.
      function documentOf(query) {
        try {
          return parse(query);
        } catch {
          return undefined;
        }
      }
      function fetcher(params, options) {
        const authorization = authorizationOf(options && options.headers);
        let forCaller = fetchers.get(authorization);
        if (!forCaller) {
          const wsClient = graphqlWs.createClient({ url: wsUrl, connectionParams: authorization ? { authorization } : {} });
          forCaller = GraphiQL.createFetcher({ url, wsClient });
          fetchers.set(authorization, forCaller);
        }
        return forCaller(params, { ...options, documentAST: documentOf(params.query) });
      }
      ReactDOM.createRoot(document.getElementById('graphiql')).render(
        React.createElement(GraphiQL, { fetcher, defaultEditorToolsVisibility: true, defaultQuery: ${JSON.stringify(EXAMPLE_QUERY)} }),
      );
    </script>
  </body>
</html>
`;

export function registerSchemaPrintout(app: FastifyInstance): void {
  app.get('/graphql/schema', async (_request, reply) => reply.type('text/plain; charset=utf-8').send(typeDefs));
}

/**
 * graphql's `language/parser.mjs` and the modules it imports, bundled by esbuild into one minified
 * ES module (about 37 kB; the package's whole `.mjs` tree is 0.8 MB and some 20 requests). Built on
 * the first request for it, once per process (about 90 ms), so starting a server costs nothing;
 * the entry is resolved at registration, so a missing package still fails the start.
 */
let parserBundle: Promise<Buffer> | undefined;

function graphqlParserBundle(): () => Promise<Buffer> {
  const entry = require.resolve('graphql/language/parser.mjs');
  return () =>
    (parserBundle ??= build({
      entryPoints: [entry],
      bundle: true,
      format: 'esm',
      minify: true,
      target: 'es2020',
      legalComments: 'none',
      logLevel: 'silent',
      write: false,
    }).then(
      ({ outputFiles }) => Buffer.from(outputFiles[0]!.contents),
      (error: unknown) => {
        parserBundle = undefined; // not kept: the next request tries again
        throw error;
      },
    ));
}

export function registerGraphiQL(app: FastifyInstance): void {
  // Read once at start: a missing package fails the start, not the first visitor.
  const files = new Map(Object.entries(ASSETS).map(([name, { pkg, file, type }]) => [name, { body: packageFile(pkg, file), type }]));
  const graphqlParser = graphqlParserBundle();
  const notFound = (reply: FastifyReply, url: string, name: string) =>
    reply
      .code(404)
      .type('application/problem+json')
      .send(problem('not-found', `No explorer asset ${name}`, url));
  const send = (reply: FastifyReply, type: string, body: Buffer) =>
    reply.type(`${type}; charset=utf-8`).header('Cache-Control', 'public, max-age=86400').send(body);
  app.get('/graphiql', async (request, reply) => {
    // HTTP requests go to /graphql on this origin; subscriptions to the WebSocket on the same host.
    const webSocket = webSocketSource(request.host, request.protocol, '/graphql');
    return sendPage(reply, PAGE, contentSecurityPolicy({ html: PAGE, connect: webSocket ? [webSocket] : [], dataFonts: true }));
  });
  app.get<{ Params: { name: string } }>('/graphiql/assets/:name', async (request, reply) => {
    const file = files.get(request.params.name);
    return file ? send(reply, file.type, file.body) : notFound(reply, request.url, request.params.name);
  });
  app.get('/graphiql/assets/graphql-parser.mjs', async (_request, reply) => send(reply, 'text/javascript', await graphqlParser()));
}
