/**
 * One type per first tag of a document: the operations that an area's handler map must answer
 * (`ProductsOperations` of rest-v1: listProducts, createProduct, …). An area types its map as
 * `OperationHandlers<ProductsOperations>` and registerOperations takes the map whole, so a handler
 * missing from it, or misnamed, is a compile error in the area's handlers file that names the
 * operation; the list of names is the document's, never a hand-kept copy. Appended to the document's
 * server types (generated/openapi/<document>.ts), beside the `operations` they pick from.
 */
import { SERVED_METHODS } from '../../src/http/openapi-methods.ts';
import { sliceTypeName } from '../../src/http/operation-slice.ts';

type PathItem = Record<string, { operationId?: string; tags?: string[] } | undefined>;

export function operationSlices(doc: { paths?: Record<string, PathItem> }): string {
  const byTag = new Map<string, string[]>();
  for (const item of Object.values(doc.paths ?? {})) {
    for (const method of SERVED_METHODS) {
      const op = item[method];
      if (!op?.operationId) continue;
      const tag = op.tags?.[0] ?? '';
      byTag.set(tag, [...(byTag.get(tag) ?? []), op.operationId]);
    }
  }
  const lines = [''];
  for (const [tag, ids] of [...byTag].sort(([a], [b]) => a.localeCompare(b))) {
    lines.push(
      `/** The operations tagged \`${tag || '(none)'}\` first: one area's handler map answers them all (registerOperations). */`,
      `export type ${sliceTypeName(tag)} = Pick<operations, ${ids.map((id) => JSON.stringify(id)).join(' | ')}>;`,
    );
  }
  return `${lines.join('\n')}\n`;
}
