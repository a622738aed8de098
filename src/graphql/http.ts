/**
 * GraphQL over HTTP (GET and POST on /graphql) through graphql-http, spec compliant. Parsing,
 * validation and limits go through the shared OperationPreparer (cached per query text), and
 * execution through the shared OperationExecutor (graphql-jit, graphql-js where it must), so HTTP
 * refuses and runs exactly what the WebSocket transport does.
 */
import type { FastifyInstance } from 'fastify';
import { GraphQLError, type ExecutionResult, type GraphQLSchema } from 'graphql';
import { createHandler } from 'graphql-http/lib/use/fastify';
import type { Principal } from '../auth/principal.ts';
import type { GraphQLContext } from './context.ts';
import { mapGraphQLError } from './errors.ts';
import type { OperationExecutor } from './execute.ts';
import type { OperationPreparer } from './operation.ts';

function isExecutionResult(value: unknown): value is ExecutionResult {
  return typeof value === 'object' && value !== null && !(Symbol.asyncIterator in value);
}

export interface GraphQLHttpOptions {
  schema: GraphQLSchema;
  preparer: OperationPreparer;
  executor: OperationExecutor;
  /** The context of one operation, from the principal the app's auth hook put on the request. */
  context: (principal: Principal | null) => GraphQLContext;
  /** Where to serve; `/graphql` unless a caller (the benchmark) mounts a second schema elsewhere. */
  url?: string;
}

const GRAPHQL_RESPONSE_JSON = 'application/graphql-response+json; charset=utf-8';
const JSON_UTF8 = 'application/json; charset=utf-8';

/**
 * The response media type graphql-http negotiated for this Accept header (the same walk as its
 * handler: the first acceptable entry wins). Only called once graphql-http has accepted the request,
 * so one of the two always applies.
 */
export function negotiatedMediaType(accept: string | undefined): string {
  if (accept === lastAccept) return lastMediaType;
  lastMediaType = negotiate(accept);
  lastAccept = accept;
  return lastMediaType;
}

/** Clients send the same Accept header request after request: remember the last answer. */
let lastAccept: string | undefined = '*/*';
let lastMediaType = JSON_UTF8;

function negotiate(accept: string | undefined): string {
  for (const entry of (accept || '*/*').replace(/\s/g, '').toLowerCase().split(',')) {
    const [mediaType, ...params] = entry.split(';');
    const charset = params.find((p) => p.includes('charset=')) ?? 'charset=utf-8';
    if (mediaType === 'application/graphql-response+json' && charset === 'charset=utf-8') return GRAPHQL_RESPONSE_JSON;
    if ((mediaType === 'application/json' || mediaType === 'application/*' || mediaType === '*/*') && (charset === 'charset=utf-8' || charset === 'charset=utf8')) {
      return JSON_UTF8;
    }
  }
  return JSON_UTF8;
}

export function registerGraphQLHttp(app: FastifyInstance, { schema, preparer, executor, context, url = '/graphql' }: GraphQLHttpOptions): void {
  const log = (err: unknown) => app.log.error({ err }, 'GraphQL resolver failed');
  const format = (error: GraphQLError) => mapGraphQLError(error, log);
  const handler = createHandler<GraphQLContext>({
    schema,
    onSubscribe: (req, params) => {
      const prepared = preparer.prepare(params);
      if (Array.isArray(prepared)) return prepared as readonly GraphQLError[];
      return {
        schema,
        document: prepared as Exclude<typeof prepared, readonly GraphQLError[]>,
        operationName: params.operationName,
        variableValues: params.variables,
        contextValue: context(req.raw.principal),
      };
    },
    execute: executor.execute,
    // Executed operations are serialised here rather than by graphql-http, which stringifies with a
    // replacer function (called for every key of the response, doubling the cost of serialisation)
    // only to turn stray Error objects into { message }. Our results hold none: data is serialised
    // scalars, and every error is a GraphQLError mapped by errors.ts, whose toJSON applies.
    // The status is what graphql-http gives every execution result: 200.
    onOperation: (req, _args, result) => {
      if (!isExecutionResult(result)) return;
      const body = result.errors ? { ...result, errors: result.errors.map(format) } : result;
      return [JSON.stringify(body), { status: 200, statusText: 'OK', headers: { 'content-type': negotiatedMediaType(req.raw.headers.accept) } }];
    },
    // Everything refused before execution (parse, validation, limits, transport errors).
    formatError: (error) => (error instanceof GraphQLError ? format(error) : error),
  });
  app.route({ method: ['GET', 'POST'], url, handler });
}
