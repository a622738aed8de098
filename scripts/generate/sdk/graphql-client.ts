/**
 * The GraphQL half of the SDK: a typed request function over `fetch` (queries and mutations) and
 * typed subscriptions over graphql-ws, both driven by the typed documents generated from
 * schema/operations/. Browser-safe: no Node built-in is imported; on Node 20, which has no global
 * WebSocket, pass `webSocketImpl` (the `ws` package) to subscribe.
 *
 * Every exported declaration carries an explicit type, because `npm run generate` emits this file's
 * `.d.ts` one file at a time (TypeScript's isolated declarations).
 */
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { print } from 'graphql';
import { createClient as createWsClient, type Client as WsClient } from 'graphql-ws';

/**
 * The classes of error the server reports in `extensions.errorType` (the interface document's
 * errors table): UNAUTHORIZED for a missing or invalid credential (HTTP 401), FORBIDDEN for access
 * denied, NOT_FOUND, BAD_REQUEST for invalid input (then `extensions.code` is VALIDATION_ERROR and
 * `extensions.violations` lists each `field` and `message`) and for documents the server refuses
 * (`code` GRAPHQL_VALIDATION_FAILED, a cost or depth limit…), TOO_MANY_REQUESTS, INTERNAL_ERROR.
 */
export type GraphqlErrorType = 'BAD_REQUEST' | 'UNAUTHORIZED' | 'FORBIDDEN' | 'NOT_FOUND' | 'TOO_MANY_REQUESTS' | 'INTERNAL_ERROR';

/**
 * A GraphQL error as the server reports it: `extensions.errorType` is the documented class
 * (GraphqlErrorType), `extensions.code` the finer reason where there is one (USER_NOT_FOUND,
 * VALIDATION_ERROR, …).
 */
export interface GraphqlError {
  message: string;
  path?: ReadonlyArray<string | number>;
  locations?: ReadonlyArray<{ line: number; column: number }>;
  extensions?: { errorType?: GraphqlErrorType; code?: string; [key: string]: unknown };
}

/** One GraphQL response: data (possibly partial) and the errors the server reported with it. */
export interface GraphqlResult<TData> {
  data?: TData | null;
  errors?: GraphqlError[];
}

/** Thrown by `request` when the response carries errors or is not a GraphQL response at all. */
export class GraphqlRequestError extends Error {
  override name = 'GraphqlRequestError';
  /** The errors of the response (one synthetic error for a non-GraphQL answer). */
  readonly errors: GraphqlError[];
  /** The HTTP status of the response (0 for a subscription). */
  readonly status: number;
  /** Whatever data came with the errors. */
  readonly data: unknown;

  constructor(errors: GraphqlError[], status: number, data: unknown) {
    super(
      errors.map((e) => (e.extensions?.errorType ? `${e.extensions.errorType}: ${e.message}` : e.message)).join('; ') || `HTTP ${status}`,
    );
    this.errors = errors;
    this.status = status;
    this.data = data;
  }
}

/** A bearer token, or a function giving one (called for every request and every new connection). */
export type TokenSource = string | undefined | (() => string | undefined | Promise<string | undefined>);

export interface GraphqlClientOptions {
  /** The HTTP endpoint, e.g. `http://localhost:3000/graphql`. */
  url: string;
  /** Sent as `Authorization: Bearer …` over HTTP and in the WebSocket `connection_init` payload. */
  token?: TokenSource;
  /** Extra headers for every HTTP request. */
  headers?: Record<string, string>;
  /** The fetch to use (default: the global fetch). */
  fetch?: typeof fetch;
  /** The subscription endpoint; default: `url` with `http` replaced by `ws`. */
  wsUrl?: string;
  /** A WebSocket constructor where the global one is missing (Node 20: `import WebSocket from 'ws'`). */
  webSocketImpl?: unknown;
  /**
   * Send a document that carries its hash (graphql-codegen's client preset with
   * `persistedDocuments: true`) as `{ documentId, variables }` over HTTP instead of its text: the
   * server runs the document registered under that id (`npm run trusted-documents -- add`), and
   * answers `PERSISTED_QUERY_NOT_FOUND` for an unknown one. Other documents, and subscriptions, are
   * sent as text.
   */
  persistedDocuments?: boolean;
}

/** The variables argument: optional exactly when the operation has no required variable. */
export type VariablesOf<TVariables> = Record<string, never> extends TVariables ? [variables?: TVariables] : [variables: TVariables];

export interface GraphqlClient {
  /** Runs a query or mutation and resolves with its data; any error rejects with GraphqlRequestError. */
  request<TData, TVariables>(document: TypedDocumentNode<TData, TVariables>, ...variables: VariablesOf<TVariables>): Promise<TData>;
  /** Runs a query or mutation and resolves with the whole response, partial data and errors together. */
  execute<TData, TVariables>(
    document: TypedDocumentNode<TData, TVariables>,
    ...variables: VariablesOf<TVariables>
  ): Promise<GraphqlResult<TData>>;
  /**
   * Subscribes over graphql-ws (one shared, lazily opened connection) and yields each event. An error
   * the server sends ends the iteration by throwing GraphqlRequestError; `break` unsubscribes.
   */
  subscribe<TData, TVariables>(
    document: TypedDocumentNode<TData, TVariables>,
    ...variables: VariablesOf<TVariables>
  ): AsyncIterableIterator<TData>;
  /** Closes the subscription connection, if one is open. */
  dispose(): Promise<void>;
}

const printed = new WeakMap<object, string>();

function queryText(document: TypedDocumentNode<unknown, unknown>): string {
  let text = printed.get(document);
  if (text === undefined) {
    text = print(document);
    printed.set(document, text);
  }
  return text;
}

async function tokenOf(source: TokenSource): Promise<string | undefined> {
  return typeof source === 'function' ? source() : source;
}

function asErrors(value: unknown): GraphqlError[] | undefined {
  return Array.isArray(value) && value.length ? (value as GraphqlError[]) : undefined;
}

export function createGraphqlClient(options: GraphqlClientOptions): GraphqlClient {
  const fetchImpl = options.fetch ?? globalThis.fetch.bind(globalThis);
  /** The client preset's id of a document (`__meta__.hash`), when persisted documents are on. */
  const persistedIdOf = (document: object): string | undefined => {
    if (!options.persistedDocuments) return undefined;
    const hash = (document as { __meta__?: { hash?: unknown } }).__meta__?.hash;
    return typeof hash === 'string' ? hash : undefined;
  };
  let ws: WsClient | undefined;

  const execute = async <TData, TVariables>(
    document: TypedDocumentNode<TData, TVariables>,
    variables?: TVariables,
  ): Promise<{ result: GraphqlResult<TData>; status: number }> => {
    const token = await tokenOf(options.token);
    const response = await fetchImpl(options.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/graphql-response+json, application/json',
        ...options.headers,
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      body: JSON.stringify(
        persistedIdOf(document) !== undefined
          ? { documentId: persistedIdOf(document), variables: variables ?? {} }
          : { query: queryText(document as TypedDocumentNode<unknown, unknown>), variables: variables ?? {} },
      ),
    });
    const text = await response.text();
    let body: { data?: TData | null; errors?: unknown } | undefined;
    try {
      body = JSON.parse(text) as typeof body;
    } catch {
      body = undefined;
    }
    if (!body || typeof body !== 'object' || (!('data' in body) && !('errors' in body))) {
      const problem = body as { detail?: string; title?: string } | undefined;
      const message = problem?.detail ?? problem?.title ?? `not a GraphQL response (HTTP ${response.status})`;
      return { result: { errors: [{ message }] }, status: response.status };
    }
    const errors = asErrors(body.errors);
    return { result: { data: body.data, ...(errors ? { errors } : {}) }, status: response.status };
  };

  const socket = (): WsClient => {
    ws ??= createWsClient({
      url: options.wsUrl ?? options.url.replace(/^http/, 'ws'),
      lazy: true,
      ...(options.webSocketImpl ? { webSocketImpl: options.webSocketImpl } : {}),
      connectionParams: async () => {
        const token = await tokenOf(options.token);
        return token ? { authorization: `Bearer ${token}` } : {};
      },
    });
    return ws;
  };

  return {
    async request(document, ...[variables]) {
      const { result, status } = await execute(document, variables);
      if (result.errors) throw new GraphqlRequestError(result.errors, status, result.data);
      return result.data as never;
    },
    async execute(document, ...[variables]) {
      return (await execute(document, variables)).result;
    },
    subscribe<TData, TVariables>(document: TypedDocumentNode<TData, TVariables>, ...[variables]: VariablesOf<TVariables>) {
      const events = socket().iterate<TData>({
        query: queryText(document as TypedDocumentNode<unknown, unknown>),
        ...(variables ? { variables } : {}),
      });
      const next = async (): Promise<IteratorResult<TData>> => {
        let step: IteratorResult<{ data?: TData | null; errors?: unknown }>;
        try {
          step = await events.next();
        } catch (cause) {
          const reason = cause as { reason?: string; message?: string };
          throw new GraphqlRequestError(asErrors(cause) ?? [{ message: reason.reason || reason.message || String(cause) }], 0, undefined);
        }
        if (step.done) return { done: true, value: undefined };
        const errors = asErrors(step.value.errors);
        if (errors) {
          await events.return?.();
          throw new GraphqlRequestError(errors, 0, step.value.data);
        }
        return { done: false, value: step.value.data as TData };
      };
      const iterator: AsyncIterableIterator<TData> = {
        next,
        async return() {
          await events.return?.();
          return { done: true, value: undefined };
        },
        [Symbol.asyncIterator]() {
          return iterator;
        },
      };
      return iterator;
    },
    async dispose() {
      await ws?.dispose();
      ws = undefined;
    },
  };
}
