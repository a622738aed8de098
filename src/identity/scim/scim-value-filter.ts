/**
 * The value filters of PATCH paths (`emails[type eq "work"]`, `members[value eq "…"]`, RFC 7644
 * §3.5.2): parsed by the same guarded parser as list filters (scim-filter-parse.ts) and evaluated
 * here against the elements of one multi-valued attribute of a resource already in memory. (List
 * filters are translated to SQL instead, see scim-filter-sql.ts.)
 */
import { scimInvalid } from './scim-errors.ts';
import { parseScimFilter, type ScimFilter } from './scim-filter-parse.ts';
import { ScimQueryError } from './scim-query-error.ts';

type Json = Record<string, unknown>;
type Literal = string | number | boolean | null;

/** The filter's tree; what cannot be parsed is `invalidPath` (RFC 7644 §3.5.2: the path is at fault). */
export function parseValueFilter(text: string): ScimFilter {
  let filter: ScimFilter;
  try {
    filter = parseScimFilter(text);
  } catch (error) {
    if (error instanceof ScimQueryError) throw scimInvalid('invalidPath', `Value filter: ${error.message}`);
    throw error;
  }
  if (nestsValuePath(filter)) throw scimInvalid('invalidPath', `A value filter cannot hold another value filter: ${text}`);
  return filter;
}

function nestsValuePath(filter: ScimFilter): boolean {
  if (filter.op === '[]') return true;
  if (filter.op === 'and' || filter.op === 'or') return filter.filters.some(nestsValuePath);
  return filter.op === 'not' && nestsValuePath(filter.filter);
}

function valueOf(element: unknown, attribute: string): unknown {
  if (element === null || typeof element !== 'object') return attribute.toLowerCase() === 'value' ? element : undefined;
  const lower = attribute.toLowerCase();
  const key = Object.keys(element).find((k) => k.toLowerCase() === lower);
  return key === undefined ? undefined : (element as Json)[key];
}

function compareStrings(a: string, op: string, e: string): boolean {
  switch (op) {
    case 'eq':
      return a === e;
    case 'ne':
      return a !== e;
    case 'co':
      return a.includes(e);
    case 'sw':
      return a.startsWith(e);
    case 'ew':
      return a.endsWith(e);
    case 'gt':
      return a > e;
    case 'ge':
      return a >= e;
    case 'lt':
      return a < e;
    default:
      return a <= e;
  }
}

function compare(actual: unknown, op: string, expected: Literal, caseExact: boolean): boolean {
  if (actual === undefined || actual === null) return op === 'eq' ? expected === null : op === 'ne' ? expected !== null : false;
  if (typeof actual === 'string' && typeof expected === 'string') {
    return caseExact ? compareStrings(actual, op, expected) : compareStrings(actual.toLowerCase(), op, expected.toLowerCase());
  }
  if (op === 'eq') return actual === expected;
  if (op === 'ne') return actual !== expected;
  if (typeof actual !== 'number' || typeof expected !== 'number') return false;
  return (
    (op === 'gt' && actual > expected) ||
    (op === 'ge' && actual >= expected) ||
    (op === 'lt' && actual < expected) ||
    (op === 'le' && actual <= expected)
  );
}

/** Whether `element` matches; `caseExact(attribute)` says how its string values compare. */
export function matchesValueFilter(filter: ScimFilter, element: unknown, caseExact: (attribute: string) => boolean): boolean {
  switch (filter.op) {
    case 'and':
      return filter.filters.every((f) => matchesValueFilter(f, element, caseExact));
    case 'or':
      return filter.filters.some((f) => matchesValueFilter(f, element, caseExact));
    case 'not':
      return !matchesValueFilter(filter.filter, element, caseExact);
    case '[]':
      return false; // refused by parseValueFilter
    case 'pr': {
      const value = valueOf(element, filter.attrPath);
      return value !== undefined && value !== null && value !== '' && !(Array.isArray(value) && value.length === 0);
    }
    default:
      return compare(valueOf(element, filter.attrPath), filter.op, filter.compValue, caseExact(filter.attrPath));
  }
}
