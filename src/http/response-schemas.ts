/**
 * JSON answers serialised from their OpenAPI response schemas (Fastify's fast-json-stringify), as
 * the fastest Fastify servers do, instead of JSON.stringify. fast-json-stringify writes only what a
 * schema declares: for an object without `additionalProperties` it drops undeclared members, which
 * JSON.stringify would keep. So a response is serialised this way only when its schema is closed
 * (every object states `additionalProperties`); open schemas (SCIM's, whose resources are
 * extensible) keep JSON.stringify. The tests' servers check every such answer against
 * JSON.stringify of the same value (test/helpers/serialization-check.ts), so a difference fails the
 * test that produced it (decision 140).
 */
import type { FastifyInstance } from 'fastify';

type Json = Record<string, any>;

/** `application/json` and every `+json` type: the media types serialised from a schema. */
export function isJsonMediaType(mediaType: string): boolean {
  const type = mediaType.split(';')[0]!.trim().toLowerCase();
  return type === 'application/json' || type.endsWith('+json');
}

function resolve(doc: Json, node: Json | undefined): Json | undefined {
  if (typeof node?.$ref !== 'string' || !node.$ref.startsWith('#/')) return node;
  const target = node.$ref
    .slice(2)
    .split('/')
    .reduce((at: Json | undefined, key: string) => at?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
  return resolve(doc, target);
}

/**
 * Whether fast-json-stringify writes every member JSON.stringify would: no object in the schema
 * leaves `additionalProperties` unstated. References are followed once (a cycle is closed if the
 * rest of it is).
 */
function isClosed(doc: Json, schema: Json | undefined, seen = new Set<Json>()): boolean {
  const node = resolve(doc, schema);
  if (node === undefined || typeof node !== 'object') return true;
  if (seen.has(node)) return true;
  seen.add(node);
  const types: unknown[] = Array.isArray(node.type) ? node.type : [node.type];
  const isObject = types.includes('object') || node.properties !== undefined;
  if (isObject && node.additionalProperties === undefined) return false;
  const children: (Json | undefined)[] = [
    ...Object.values<Json>(node.properties ?? {}),
    ...(typeof node.additionalProperties === 'object' ? [node.additionalProperties] : []),
    ...(Array.isArray(node.prefixItems) ? node.prefixItems : []),
    node.items,
    ...['allOf', 'anyOf', 'oneOf'].flatMap((k) => (Array.isArray(node[k]) ? (node[k] as Json[]) : [])),
  ];
  return children.every((child) => isClosed(doc, child, seen));
}

/** The local references of `schema` pointed into the document registered as `id`. */
function pointedAt(id: string, schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map((item) => pointedAt(id, item));
  if (schema === null || typeof schema !== 'object') return schema;
  return Object.fromEntries(
    Object.entries(schema).map(([key, value]) => [
      key,
      key === '$ref' && typeof value === 'string' && value.startsWith('#/') ? `${id}${value}` : pointedAt(id, value),
    ]),
  );
}

/** The schema id a document's components are registered under, once per scope (and its children). */
export function registerComponents(app: FastifyInstance, document: string, doc: Json): string {
  const id = `openapi-${document}`;
  if (!app.getSchema(id)) app.addSchema({ $id: id, components: doc.components ?? {} });
  return id;
}

/**
 * Fastify's `schema.response` for an operation: its 2xx JSON bodies with closed schemas, by status
 * and media type; null when it has none.
 */
export function serializedResponses(
  doc: Json,
  id: string,
  op: Json,
): Record<string, { content: Record<string, { schema: unknown }> }> | null {
  const response: Record<string, { content: Record<string, { schema: unknown }> }> = {};
  for (const [status, declared] of Object.entries<Json>(op.responses ?? {})) {
    if (!/^2\d\d$/.test(status)) continue;
    const content: Record<string, { schema: unknown }> = {};
    for (const [mediaType, body] of Object.entries<Json>(resolve(doc, declared)?.content ?? {})) {
      if (isJsonMediaType(mediaType) && body?.schema && isClosed(doc, body.schema))
        content[mediaType] = { schema: pointedAt(id, body.schema) };
    }
    if (Object.keys(content).length) response[status] = { content };
  }
  return Object.keys(response).length ? response : null;
}
