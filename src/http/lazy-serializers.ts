/**
 * Fastify's response serializers, compiled on a route's first answer instead of at start-up.
 * fast-json-stringify compiles each 2xx JSON schema (response-schemas.ts) with the whole components
 * document of its OpenAPI document beside it, some tens of milliseconds a route: at start-up that
 * is every route of the service, most of which a given process (a worker, a test, a server behind
 * a load balancer that sees a share of the routes) may never answer. The serializer is the one
 * Fastify's default factory builds, with the same options and shared schemas; only when it is
 * built changes, and the first answer of a route pays its compile once.
 */
import fastJson, { type Options, type Schema } from 'fast-json-stringify';

/** For Fastify's `schemaController.compilersFactory.buildSerializer`. */
export function lazySerializerFactory(externalSchemas?: unknown, serializerOptions?: Options) {
  const options: Options = { ...serializerOptions, ...(externalSchemas ? { schema: externalSchemas as Record<string, Schema> } : {}) };
  return ({ schema }: { schema?: unknown }) => {
    let serialize: ((data: unknown) => string) | undefined;
    return (data: unknown) => (serialize ??= fastJson(schema as Schema, options))(data);
  };
}
