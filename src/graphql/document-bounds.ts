/**
 * Bounds computed on a GraphQL document as written, in time linear in its size, before anything
 * walks it in a way that can blow up: graphql-js's parser recurses once per nesting level (a list
 * literal 5,000 deep overflows the stack), and validation (OverlappingFieldsCanBeMerged above all),
 * the depth, cost and serializer walks expand every fragment spread where it occurs, so fragments
 * that each spread the next one twice make a 2 KB document select 2^40 fields.
 */
import { Kind, type DefinitionNode, type DocumentNode, type SelectionSetNode } from 'graphql';

/** Deepest nesting of `{`, `[` and `(` the parser is given. The selection depth limit is 10. */
export const MAX_TEXT_NESTING = 150;

/**
 * Field selections a single operation or fragment may make once its fragments are expanded. Every
 * field costs at least 1 in the cost model (limit 200), and the full introspection query selects
 * about 230, so only a document built to blow up comes near it.
 */
export const MAX_EXPANDED_FIELDS = 2_000;

/**
 * The deepest bracket nesting of the text, skipping strings, block strings and comments; stops
 * counting once past `limit`.
 */
export function textNesting(text: string, limit = MAX_TEXT_NESTING): number {
  let depth = 0;
  let deepest = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x23 /* # */) {
      while (i < text.length && text.charCodeAt(i) !== 0x0a && text.charCodeAt(i) !== 0x0d) i++;
    } else if (c === 0x22 /* " */) {
      if (text.startsWith('"""', i)) {
        const end = text.indexOf('"""', i + 3);
        // Escaped triple quotes (\""") inside a block string do not end it.
        let close = end;
        while (close > 0 && text.charCodeAt(close - 1) === 0x5c) close = text.indexOf('"""', close + 3);
        if (close < 0) return deepest;
        i = close + 2;
      } else {
        for (i++; i < text.length && text.charCodeAt(i) !== 0x22 && text.charCodeAt(i) !== 0x0a; i++) {
          if (text.charCodeAt(i) === 0x5c) i++;
        }
      }
    } else if (c === 0x7b || c === 0x5b || c === 0x28) {
      depth++;
      if (depth > deepest) {
        deepest = depth;
        if (deepest > limit) return deepest;
      }
    } else if (c === 0x7d || c === 0x5d || c === 0x29) {
      depth--;
    }
  }
  return deepest;
}

interface ExpandedSize {
  /** Field selections once every fragment spread is replaced by its fragment. */
  fields: number;
  /** Name of the operation or fragment that selects the most, for the error message. */
  largest: string;
}

/**
 * The largest expanded size of any operation or fragment of the document, computing each fragment's
 * once (a fragment spread N times adds its size N times, without walking it again). A fragment cycle
 * counts as nothing here: validation reports it.
 */
export function largestExpansion(document: DocumentNode): ExpandedSize {
  const fragments = new Map<string, SelectionSetNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition.selectionSet);
  }
  const sizes = new Map<string, number>();
  const inProgress = new Set<string>();

  const fragmentSize = (name: string): number => {
    const known = sizes.get(name);
    if (known !== undefined) return known;
    const selectionSet = fragments.get(name);
    if (!selectionSet || inProgress.has(name)) return 0;
    inProgress.add(name);
    const size = selectionSetSize(selectionSet);
    inProgress.delete(name);
    sizes.set(name, size);
    return size;
  };

  // Recursion follows the document's own nesting, which MAX_TEXT_NESTING has bounded; fragment
  // spreads are followed once per fragment (memoised above).
  const selectionSetSize = (selectionSet: SelectionSetNode): number => {
    let size = 0;
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FIELD) size += 1 + (selection.selectionSet ? selectionSetSize(selection.selectionSet) : 0);
      else if (selection.kind === Kind.INLINE_FRAGMENT) size += selectionSetSize(selection.selectionSet);
      else size += fragmentSize(selection.name.value);
      // Past any bound worth checking: stop adding before the sum loses precision.
      if (size > Number.MAX_SAFE_INTEGER / 4) return size;
    }
    return size;
  };

  let largest: ExpandedSize = { fields: 0, largest: '' };
  for (const definition of document.definitions) {
    const size = definitionSize(definition, selectionSetSize, fragmentSize);
    if (size > largest.fields) largest = { fields: size, largest: nameOf(definition) };
  }
  return largest;
}

function definitionSize(
  definition: DefinitionNode,
  selectionSetSize: (s: SelectionSetNode) => number,
  fragmentSize: (name: string) => number,
): number {
  if (definition.kind === Kind.OPERATION_DEFINITION) return selectionSetSize(definition.selectionSet);
  if (definition.kind === Kind.FRAGMENT_DEFINITION) return fragmentSize(definition.name.value);
  return 0;
}

function nameOf(definition: DefinitionNode): string {
  if (definition.kind === Kind.FRAGMENT_DEFINITION) return `fragment ${definition.name.value}`;
  if (definition.kind === Kind.OPERATION_DEFINITION) return definition.name ? `operation ${definition.name.value}` : 'the operation';
  return 'the document';
}
