/**
 * Every operation of every served OpenAPI document must have a route. Areas register their own
 * slices of shared documents (catalog, orders and files share rest-v1), so no single handler map is
 * complete by construction; instead the application refuses to start, naming what is missing, when
 * one is not served. Every test that starts the server checks it.
 */
import type { FastifyInstance } from 'fastify';
import { documentNames } from '../../generated/openapi/index.ts';
import { loadOpenApiDocument } from './openapi-docs.ts';
import { SERVED_METHODS } from './openapi-methods.ts';

/** `<document>#<operationId>` of every operation the documents declare. */
function declaredOperations(names: readonly string[]): string[] {
  const declared: string[] = [];
  for (const name of names) {
    const paths = (loadOpenApiDocument(name).paths ?? {}) as Record<string, Record<string, { operationId?: string } | undefined>>;
    for (const item of Object.values(paths)) {
      for (const method of SERVED_METHODS) {
        const operationId = item[method]?.operationId;
        if (operationId) declared.push(`${name}#${operationId}`);
      }
    }
  }
  return declared;
}

/** Makes `app.ready()` (and `listen`) fail unless every operation of `names` got a route. */
export function requireEveryOperationServed(app: FastifyInstance, names: readonly string[] = documentNames): void {
  const served = new Set<string>();
  app.addHook('onRoute', (route) => {
    const { openApiDocument, operationId } = route.config ?? {};
    if (openApiDocument && operationId) served.add(`${openApiDocument}#${operationId}`);
  });
  app.addHook('onReady', async () => {
    const missing = declaredOperations(names).filter((operation) => !served.has(operation));
    if (missing.length) throw new Error(`OpenAPI operations without a handler: ${missing.join(', ')}`);
  });
}
