/**
 * The name of the generated type of an operation's slice: one per first tag of a document
 * (`products` → `ProductsOperations`, `single-sign-on` → `SingleSignOnOperations`, an untagged
 * operation's `UntaggedOperations`), beside the document's `operations` in
 * generated/openapi/<document>.ts. `npm run generate` names the types with it
 * (scripts/generate/operation-slices.ts), and the start-up refusal names the one to complete.
 */
export function sliceTypeName(tag: string): string {
  const words = (tag || 'untagged').split(/[^A-Za-z0-9]+/).filter(Boolean);
  return `${words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join('')}Operations`;
}
