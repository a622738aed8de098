/**
 * Parses a SCIM filter (RFC 7644 §3.4.2.2) with the `scim2-parse-filter` library, behind the guards
 * that make any input safe to hand it: a length limit, a nesting limit (the library descends
 * recursively, and a few thousand parentheses exhaust the stack), and a limit on the number of
 * comparisons (each becomes SQL).
 *
 * Quoted values are lifted out before the library sees the text and put back into its tree after.
 * That gives them the JSON string semantics the RFC prescribes (the library keeps a backslash
 * literally except before a quote, so `"a\\b"` would mean `a\\b` and `"a\\"` would not parse), and
 * keeps backslashes and line breaks away from the library's string pattern, whose backtracking is
 * exponential on an unterminated string of line breaks.
 */
import { parse, type Filter } from 'scim2-parse-filter';
import { ScimQueryError } from './scim-query-error.ts';

export type { Filter as ScimFilter } from 'scim2-parse-filter';

/** Longer than any filter an identity provider sends (those are a few hundred characters at most). */
export const MAX_FILTER_LENGTH = 4096;
/**
 * How deep parentheses and value-path brackets may nest (checked before parsing: the library
 * descends recursively), and how deep the parsed tree may be (`not`s without parentheses nest too).
 */
const MAX_FILTER_DEPTH = 32;
/** Comparisons and presence tests in one filter. */
export const MAX_FILTER_TERMS = 50;

const invalid = (message: string) => new ScimQueryError('invalidFilter', message);

interface Lexed {
  /** The filter with every quoted value replaced by `"s<index>"`. */
  text: string;
  strings: string[];
}

/**
 * Replaces each JSON string by a placeholder, checking the nesting of parentheses and brackets. Linear in the
 * length of the filter; nothing here backtracks.
 */
function liftStrings(filter: string): Lexed {
  const strings: string[] = [];
  let text = '';
  let depth = 0;
  let i = 0;
  while (i < filter.length) {
    const c = filter[i]!;
    if (c === '"') {
      let j = i + 1;
      while (j < filter.length && filter[j] !== '"') j += filter[j] === '\\' ? 2 : 1;
      if (j >= filter.length) throw invalid('A quoted value is not terminated');
      let value: unknown;
      try {
        value = JSON.parse(filter.slice(i, j + 1));
      } catch {
        throw invalid(`${filter.slice(i, Math.min(j + 1, i + 40))} is not a valid JSON string`);
      }
      text += `"s${strings.length}"`;
      strings.push(value as string);
      i = j + 1;
      continue;
    }
    if (c === '(' || c === '[') depth += 1;
    else if (c === ')' || c === ']') depth -= 1;
    if (depth > MAX_FILTER_DEPTH) throw invalid(`The filter nests deeper than ${MAX_FILTER_DEPTH} levels`);
    if (depth < 0) throw invalid('Unbalanced parentheses or brackets');
    text += c;
    i += 1;
  }
  return { text, strings };
}

/** Puts the lifted strings back, counting the terms and checking the depth. */
function restore(node: Filter, strings: string[], counter: { terms: number }, depth = 1): Filter {
  if (depth > MAX_FILTER_DEPTH) throw invalid(`The filter nests deeper than ${MAX_FILTER_DEPTH} levels`);
  switch (node.op) {
    case 'and':
    case 'or':
      return { op: node.op, filters: node.filters.map((f) => restore(f, strings, counter, depth + 1)) };
    case 'not':
      return { op: 'not', filter: restore(node.filter, strings, counter, depth + 1) };
    case '[]':
      return { op: '[]', attrPath: node.attrPath, valFilter: restore(node.valFilter, strings, counter, depth + 1) };
    case 'pr':
      counter.terms += 1;
      return node;
    default: {
      counter.terms += 1;
      if (typeof node.compValue !== 'string') return node;
      const index = /^s(\d+)$/.exec(node.compValue);
      const value = index ? strings[Number(index[1])] : undefined;
      // Every string the library returns came from a placeholder: a word is never parsed as a string.
      if (value === undefined) throw new Error(`Unexpected filter value ${node.compValue}`);
      return { ...node, compValue: value };
    }
  }
}

/** The filter's tree, or ScimQueryError('invalidFilter') saying what is wrong with it. */
export function parseScimFilter(filter: string): Filter {
  if (filter.length > MAX_FILTER_LENGTH) throw invalid(`The filter is longer than ${MAX_FILTER_LENGTH} characters`);
  if (filter.trim() === '') throw invalid('The filter is empty');
  const lexed = liftStrings(filter);
  let tree: Filter;
  try {
    tree = parse(lexed.text);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw invalid(
      `The filter cannot be parsed: ${reason.replace(/"s(\d+)"/g, (_, n: string) => JSON.stringify(lexed.strings[Number(n)]))}`,
    );
  }
  const counter = { terms: 0 };
  const restored = restore(tree, lexed.strings, counter);
  if (counter.terms > MAX_FILTER_TERMS) throw invalid(`The filter has more than ${MAX_FILTER_TERMS} comparisons`);
  return restored;
}
