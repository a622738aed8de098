/**
 * Every operation of every served OpenAPI document must have a route. Each area's handler map is
 * complete by type (the generated `<Tag>Operations` slices, registerOperations), but nothing types
 * the set of slices the areas register, and `npm run dev` (tsx) checks no types at all; so the
 * application refuses to start, with one line per operation without a handler naming the slice type
 * to complete. It reads the bundled documents and the routes registered, never the sources. Every
 * test that starts the server checks it.
 */
import type { FastifyInstance } from 'fastify';
import { documentNames } from '../../generated/openapi/index.ts';
import { SERVED_METHODS } from './openapi-methods.ts';
import { loadOpenApiDocument } from './openapi-docs.ts';
import { sliceTypeName } from './operation-slice.ts';

/** Operations without a handler; its message has one line per operation (src/main.ts prints each). */
export class MissingHandlersError extends Error {
  constructor(readonly lines: readonly string[]) {
    super(lines.join('\n'));
    this.name = 'MissingHandlersError';
  }
}

type PathItem = Record<string, { operationId?: string; tags?: string[] } | undefined>;

interface DeclaredOperation {
  operationId: string;
  /** `POST /api/v1/products/{id}/archive` */
  where: string;
  /** The generated type of its slice (`ProductsOperations`). */
  slice: string;
}

/** The operations of a bundled document that the server routes, in document order. */
function declaredOperations(doc: { paths?: Record<string, PathItem> }): DeclaredOperation[] {
  const operations: DeclaredOperation[] = [];
  for (const [route, item] of Object.entries(doc.paths ?? {})) {
    for (const method of SERVED_METHODS) {
      const op = item[method];
      if (op?.operationId)
        operations.push({
          operationId: op.operationId,
          where: `${method.toUpperCase()} ${route}`,
          slice: sliceTypeName(op.tags?.[0] ?? ''),
        });
    }
  }
  return operations;
}

/**
 * For each operation of `names` that `served` (`<document>#<operationId>`) lacks:
 * `openapi/<document>.yaml: operation <operationId> (<METHOD> <path>) has no handler; ` and what to
 * do: complete the handler map of its slice when an area already answers other operations of the
 * slice (the compiler then names the file), else have an area register the slice.
 */
function missingHandlerLines(names: readonly string[], served: ReadonlySet<string>): string[] {
  const lines: string[] = [];
  for (const name of names) {
    const operations = declaredOperations(loadOpenApiDocument(name));
    const isServed = (op: DeclaredOperation) => served.has(`${name}#${op.operationId}`);
    const answered = new Set(operations.filter(isServed).map((op) => op.slice));
    const types = `generated/openapi/${name}.ts`;
    for (const op of operations) {
      if (isServed(op)) continue;
      const remedy = answered.has(op.slice)
        ? `add it to the handlers of \`${op.slice}\` (${types}); \`npm run typecheck\` names the file`
        : `no area answers \`${op.slice}\` (${types}); register a handler map of that type with registerOperations in an area plugin`;
      lines.push(`openapi/${name}.yaml: operation ${op.operationId} (${op.where}) has no handler; ${remedy}`);
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
