/**
 * The parameters of one GraphQL request, read once and in one shape. Trusted-document admission
 * decides on these values and the operation runs from them (HTTP hands graphql-http a request
 * rebuilt from them), so the two can never read different values: a query string's repeated key
 * is an array to Fastify's parser and the first value to graphql-http, which once let an
 * unregistered document run next to a second `query`. Any shape other than the expected one (a
 * repeated key, a bracketed key such as `query[]`, an array or number in a JSON body) is refused.
 */
import { GraphQLError } from 'graphql';

/** What a request sends: text or an id, and what the operation runs with. */
export interface RequestParams {
  query?: string;
  documentId?: string;
  operationName?: string;
  variables?: Record<string, unknown>;
  extensions?: Record<string, unknown>;
}

type Name = keyof RequestParams;
/** In graphql-http's order of checks, so that a request wrong in two ways gets the same words. */
const NAMES: readonly Name[] = ['query', 'documentId', 'variables', 'operationName', 'extensions'];
const isObjectParam = (name: Name): name is 'variables' | 'extensions' => name === 'variables' || name === 'extensions';

type ReadParams = { params: RequestParams } | { error: GraphQLError };

/** A request refused before any operation, in the shape of graphql-http's own refusals of parameters. */
export function requestError(message: string): GraphQLError {
  return new GraphQLError(message, { extensions: { errorType: 'BAD_REQUEST', code: 'BAD_GRAPHQL_REQUEST' } });
}

const refused = (message: string): ReadParams => ({ error: requestError(message) });

/**
 * The parameters of a JSON body or a graphql-ws payload: each text a string, each object a JSON
 * object that is no array, or absent (null counts as absent). The words are graphql-http's, which
 * answers the same shapes the same way when no trusted documents are configured.
 */
export function paramsOfObject(sent: Readonly<Record<string, unknown>>): ReadParams {
  const params: RequestParams = {};
  for (const name of NAMES) {
    const value = sent[name];
    if (value == null) continue;
    if (isObjectParam(name)) {
      if (typeof value !== 'object' || Array.isArray(value)) return refused(`Invalid ${name}`);
      params[name] = value as Record<string, unknown>;
    } else {
      if (typeof value !== 'string') return refused(`Invalid ${name}`);
      params[name] = value;
    }
  }
  return { params };
}

/** The parameter a query-string key spells, bracketed or not (`query`, `query[]`, `extensions[a]`). */
const nameOf = (key: string): Name | undefined => NAMES.find((name) => key === name || key.startsWith(`${name}[`));

/**
 * The parameters of a GET request, from its URL as sent (not from Fastify's parse of it): each at
 * most once and unbracketed, `variables` and `extensions` JSON text (empty counts as absent, as
 * graphql-http reads them).
 */
export function paramsOfUrl(url: string): ReadParams {
  const at = url.indexOf('?');
  const sent = new Map<Name, string>();
  for (const [key, value] of new URLSearchParams(at === -1 ? '' : url.slice(at + 1))) {
    const name = nameOf(key);
    if (name === undefined) continue;
    if (key !== name) return refused(`Invalid ${name}: send it as ${name}=, not ${key}=`);
    if (sent.has(name)) return refused(`Invalid ${name}: the parameter is repeated`);
    sent.set(name, value);
  }
  const parsed: Record<string, unknown> = {};
  for (const [name, value] of sent) {
    if (!isObjectParam(name)) parsed[name] = value;
    else if (value !== '') {
      try {
        parsed[name] = JSON.parse(value) as unknown;
      } catch {
        return refused('Unparsable URL');
      }
    }
  }
  return paramsOfObject(parsed);
}

/** A GET request's path with the query string of these parameters and nothing else. */
export function urlOf(url: string, params: RequestParams): string {
  const search = new URLSearchParams();
  for (const name of NAMES) {
    const value = params[name];
    if (value !== undefined) search.set(name, typeof value === 'string' ? value : JSON.stringify(value));
  }
  const path = url.split('?', 1)[0]!;
  const text = search.toString();
  return text ? `${path}?${text}` : path;
}
