/**
 * Where an OpenAPI operation's handler belongs, found the way `npm run generate` finds it
 * (scripts/generate/implementation-check.ts): beside the operations next to it (same document, same
 * first tag) in the file that writes them, else in the file that registers the document. The
 * application's refusal to start without a handler (operation-coverage.ts) names that file.
 */
import fs from 'node:fs';
import path from 'node:path';
import { SERVED_METHODS } from './openapi-methods.ts';

type PathItem = Record<string, { operationId?: string; tags?: string[] } | undefined>;

interface DeclaredOperation {
  document: string;
  operationId: string;
  /** `POST /api/v1/products/{id}/archive` */
  where: string;
  /** The operation's first tag ('' without one). */
  tag: string;
}

/** The operations of a bundled document that the server routes, in document order. */
export function declaredOperations(document: string, doc: { paths?: Record<string, PathItem> }): DeclaredOperation[] {
  const operations: DeclaredOperation[] = [];
  for (const [route, item] of Object.entries(doc.paths ?? {})) {
    for (const method of SERVED_METHODS) {
      const op = item[method];
      if (op?.operationId)
        operations.push({ document, operationId: op.operationId, where: `${method.toUpperCase()} ${route}`, tag: op.tags?.[0] ?? '' });
    }
  }
  return operations;
}

/** Whether a source defines a property or method named `key` (`createProduct: async (request) => …`). */
function definesKey(text: string, key: string): boolean {
  return new RegExp(`^\\s+(?:async\\s+)?${key}\\s*(?::|\\()`, 'm').test(text);
}

/**
 * The file to write the handler of `missing` in: the file of a written operation with the same first
 * tag in its document, else of any written operation of the document, else the file that registers
 * the document. `sources` maps project-relative paths of src/ files to their text; `operations` are
 * the document's (declaredOperations).
 */
export function handlerFile(missing: DeclaredOperation, operations: readonly DeclaredOperation[], sources: Record<string, string>): string {
  const fileOf = (op: DeclaredOperation) => Object.keys(sources).find((file) => definesKey(sources[file]!, op.operationId));
  const others = operations.filter((op) => op.operationId !== missing.operationId);
  for (const candidates of [others.filter((op) => op.tag === missing.tag), others]) {
    for (const op of candidates) {
      const file = fileOf(op);
      if (file) return file;
    }
  }
  const registers = new RegExp(`registerOperations(?:<\\w+>)?\\(\\s*\\w+,\\s*'${missing.document}'`);
  return Object.keys(sources).find((file) => registers.test(sources[file]!)) ?? `a plugin that registers openapi/${missing.document}.yaml`;
}

function listTs(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    return e.isDirectory() ? listTs(full) : e.name.endsWith('.ts') ? [full] : [];
  });
}

/**
 * The src/ files of the project this module belongs to, by path relative to it: run from its source
 * (tsx) the project is two folders up, compiled (dist/src/http/) three; none when the sources were
 * not deployed.
 */
export function projectSources(): Record<string, string> {
  for (const up of ['../..', '../../..']) {
    const root = path.resolve(import.meta.dirname, up);
    if (!fs.existsSync(path.join(root, 'src/http/handler-files.ts'))) continue;
    return Object.fromEntries(
      listTs(path.join(root, 'src'))
        .sort()
        .map((file) => [path.relative(root, file), fs.readFileSync(file, 'utf8')]),
    );
  }
  return {};
}
