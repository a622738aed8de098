/**
 * The value filters of PATCH paths (`emails[type eq "work"]`, `members[value eq "…"]`, RFC 7644
 * §3.5.2): parsed here and evaluated against the elements of one multi-valued attribute of a resource
 * already in memory. (List filters are translated to SQL instead, see scim-list.ts.)
 */
import { scimInvalid } from './scim-errors.ts';

type Json = Record<string, unknown>;
type Literal = string | number | boolean | null;
type Operator = 'eq' | 'ne' | 'co' | 'sw' | 'ew' | 'gt' | 'ge' | 'lt' | 'le';

export type ValueFilter =
  | { kind: 'and' | 'or'; left: ValueFilter; right: ValueFilter }
  | { kind: 'not'; inner: ValueFilter }
  | { kind: 'present'; attribute: string }
  | { kind: 'compare'; attribute: string; op: Operator; value: Literal };

const OPERATORS = new Set(['eq', 'ne', 'co', 'sw', 'ew', 'gt', 'ge', 'lt', 'le']);
const TOKEN = /\s*(?:(\()|(\))|("(?:[^"\\]|\\.)*")|([^\s()"]+))/y;
const MAX_LENGTH = 1000;

function tokenize(text: string): string[] {
  const tokens: string[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < text.length) {
    if (/^\s*$/.test(text.slice(TOKEN.lastIndex))) break;
    const match = TOKEN.exec(text);
    if (!match) throw scimInvalid('invalidPath', `Cannot read the value filter: ${text}`);
    tokens.push(match[0].trim());
  }
  return tokens;
}

function literal(token: string | undefined, text: string): Literal {
  if (token === undefined) throw scimInvalid('invalidPath', `The value filter ends early: ${text}`);
  if (token.startsWith('"')) {
    try {
      return JSON.parse(token) as string;
    } catch {
      throw scimInvalid('invalidPath', `Malformed string in the value filter: ${text}`);
    }
  }
  const lower = token.toLowerCase();
  if (lower === 'true' || lower === 'false') return lower === 'true';
  if (lower === 'null') return null;
  if (/^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(token)) return Number(token);
  throw scimInvalid('invalidPath', `Unexpected ${token} in the value filter: ${text}`);
}

export function parseValueFilter(text: string): ValueFilter {
  if (text.length > MAX_LENGTH) throw scimInvalid('invalidPath', 'The value filter is too long');
  const tokens = tokenize(text);
  let at = 0;
  const peek = () => tokens[at]?.toLowerCase();
  const expect = (token: string) => {
    if (peek() !== token) throw scimInvalid('invalidPath', `Expected ${token} in the value filter: ${text}`);
    at++;
  };
  let depth = 0;
  const or = (): ValueFilter => {
    if (++depth > 50) throw scimInvalid('invalidPath', 'The value filter is nested too deeply');
    let left = and();
    while (peek() === 'or') {
      at++;
      left = { kind: 'or', left, right: and() };
    }
    depth--;
    return left;
  };
  const and = (): ValueFilter => {
    let left = unary();
    while (peek() === 'and') {
      at++;
      left = { kind: 'and', left, right: unary() };
    }
    return left;
  };
  const unary = (): ValueFilter => {
    if (peek() === 'not') {
      at++;
      expect('(');
      const inner = or();
      expect(')');
      return { kind: 'not', inner };
    }
    if (peek() === '(') {
      at++;
      const inner = or();
      expect(')');
      return inner;
    }
    const attribute = tokens[at++];
    if (!attribute || !/^[A-Za-z$][\w$.-]*$/.test(attribute))
      throw scimInvalid('invalidPath', `Expected an attribute in the value filter: ${text}`);
    const op = tokens[at++]?.toLowerCase();
    if (op === 'pr') return { kind: 'present', attribute };
    if (!op || !OPERATORS.has(op)) throw scimInvalid('invalidPath', `Unknown operator ${op ?? '(none)'} in the value filter: ${text}`);
    return { kind: 'compare', attribute, op: op as Operator, value: literal(tokens[at++], text) };
  };
  const filter = or();
  if (at !== tokens.length) throw scimInvalid('invalidPath', `Unexpected ${tokens[at]} in the value filter: ${text}`);
  return filter;
}

function valueOf(element: unknown, attribute: string): unknown {
  if (element === null || typeof element !== 'object') return attribute.toLowerCase() === 'value' ? element : undefined;
  const lower = attribute.toLowerCase();
  const key = Object.keys(element).find((k) => k.toLowerCase() === lower);
  return key === undefined ? undefined : (element as Json)[key];
}

function compare(actual: unknown, op: Operator, expected: Literal, caseExact: boolean): boolean {
  if (actual === undefined || actual === null) return op === 'eq' ? expected === null : op === 'ne' ? expected !== null : false;
  if (typeof actual === 'string' && typeof expected === 'string') {
    const a = caseExact ? actual : actual.toLowerCase();
    const e = caseExact ? expected : expected.toLowerCase();
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
      case 'le':
        return a <= e;
    }
  }
  if (op === 'eq') return actual === expected;
  if (op === 'ne') return actual !== expected;
  if (typeof actual === 'number' && typeof expected === 'number') {
    return op === 'gt'
      ? actual > expected
      : op === 'ge'
        ? actual >= expected
        : op === 'lt'
          ? actual < expected
          : op === 'le'
            ? actual <= expected
            : false;
  }
  return false;
}

/** Whether `element` matches; `caseExact(attribute)` says how its string values compare. */
export function matchesValueFilter(filter: ValueFilter, element: unknown, caseExact: (attribute: string) => boolean): boolean {
  switch (filter.kind) {
    case 'and':
      return matchesValueFilter(filter.left, element, caseExact) && matchesValueFilter(filter.right, element, caseExact);
    case 'or':
      return matchesValueFilter(filter.left, element, caseExact) || matchesValueFilter(filter.right, element, caseExact);
    case 'not':
      return !matchesValueFilter(filter.inner, element, caseExact);
    case 'present': {
      const value = valueOf(element, filter.attribute);
      return value !== undefined && value !== null && value !== '' && !(Array.isArray(value) && value.length === 0);
    }
    case 'compare':
      return compare(valueOf(element, filter.attribute), filter.op, filter.value, caseExact(filter.attribute));
  }
}
