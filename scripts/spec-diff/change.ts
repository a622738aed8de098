/** A change `npm run spec:diff` reports (scripts/spec-diff.ts), and the order of its levels. */
export type Level = 'error' | 'warning' | 'info';

/** One client-visible change; `--format json` prints an array of these. */
export interface SpecChange {
  level: Level;
  /** `schema/` or the OpenAPI document's file. */
  file: string;
  /** `POST /api/v1/products request body .name`, `CreatePostInput.title @constraint`, `Post.likeCount`, … */
  location: string;
  /** `maxLength decreased`, `enum value removed`, `property added`, graphql-inspector's sentence, … */
  change: string;
  /** The value before and after, when it is one (a number, a string, a list of them); null otherwise. */
  old: string | null;
  new: string | null;
}

export const LEVELS: readonly Level[] = ['error', 'warning', 'info'];

/** What the specs are read from, at a ref and in the working tree. */
export const SPEC_PATHS = ['openapi', 'schema', 'codegen.ts'];
