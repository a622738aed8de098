/**
 * The bundled OpenAPI documents in generated/: what registerOperations serves and the ops area
 * publishes, so what is served is exactly what was validated (`servers` aside, see withBaseUrl).
 */
import fs from 'node:fs';
import path from 'node:path';

const GENERATED = path.resolve(import.meta.dirname, '../../generated/openapi');

type OpenApiDocument = Record<string, any>;

const loaded = new Map<string, OpenApiDocument>();

/**
 * The parsed document, read once per process (every server built in it shares the copy, and the
 * area plugins of one server ask for the same documents several times). Callers only read it.
 */
export function loadOpenApiDocument(name: string): OpenApiDocument {
  let doc = loaded.get(name);
  if (!doc) {
    doc = JSON.parse(fs.readFileSync(path.join(GENERATED, `${name}.json`), 'utf8')) as OpenApiDocument;
    loaded.set(name, doc);
  }
  return doc;
}

/**
 * The committed documents name a relative server, the published ones the public base address
 * (BASE_URL), so a client generated from a downloaded copy reaches this deployment: the first
 * server's path (a version base path such as `/api/v1`, or `/`) appended to `baseUrl`.
 */
export function withBaseUrl(doc: OpenApiDocument, baseUrl: string): OpenApiDocument {
  const [first, ...rest] = (doc.servers ?? [{ url: '/' }]) as { url: string; description?: string }[];
  const basePath = first!.url.startsWith('/') ? first!.url.replace(/\/+$/, '') : '';
  const server = { ...first!, url: `${baseUrl}${basePath}`, description: 'This deployment (its configured public base address).' };
  return { ...doc, servers: [server, ...rest] };
}
