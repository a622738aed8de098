/**
 * Every operation of every served OpenAPI document must have a route. Areas register their own
 * slices of shared documents (catalog, orders and files share rest-v1), so no single handler map is
 * complete by construction, and `npm run dev` (tsx) does not check types; instead the application
 * refuses to start, with one line per operation without a handler naming the file to write it in
 * (handler-files.ts). Every test that starts the server checks it.
 */
import type { FastifyInstance } from 'fastify';
import { documentNames } from '../../generated/openapi/index.ts';
import { declaredOperations, handlerFile, projectSources } from './handler-files.ts';
import { loadOpenApiDocument } from './openapi-docs.ts';

/** Operations without a handler; its message has one line per operation (src/main.ts prints each). */
export class MissingHandlersError extends Error {
  constructor(readonly lines: readonly string[]) {
    super(lines.join('\n'));
    this.name = 'MissingHandlersError';
  }
}

/**
 * `openapi/<document>.yaml: operation <operationId> (<METHOD> <path>) has no handler; write it in <file>`
 * for each operation of `names` that `served` (`<document>#<operationId>`) lacks.
 */
function missingHandlerLines(names: readonly string[], served: ReadonlySet<string>): string[] {
  const lines: string[] = [];
  let sources: Record<string, string> | undefined;
  for (const name of names) {
    const operations = declaredOperations(name, loadOpenApiDocument(name));
    for (const op of operations) {
      if (served.has(`${name}#${op.operationId}`)) continue;
      // Read only when something is missing: a start-up with every handler reads no source.
      sources ??= projectSources();
      const file = handlerFile(op, operations, sources);
      lines.push(`openapi/${name}.yaml: operation ${op.operationId} (${op.where}) has no handler; write it in ${file}`);
    }
  }
  return lines;
}

/** Makes `app.ready()` (and `listen`) fail with a MissingHandlersError unless every operation of `names` got a route. */
export function requireEveryOperationServed(app: FastifyInstance, names: readonly string[] = documentNames): void {
  const served = new Set<string>();
  app.addHook('onRoute', (route) => {
    const { openApiDocument, operationId } = route.config ?? {};
    if (openApiDocument && operationId) served.add(`${openApiDocument}#${operationId}`);
  });
  app.addHook('onReady', async () => {
    const lines = missingHandlerLines(names, served);
    if (lines.length) throw new MissingHandlersError(lines);
  });
}
