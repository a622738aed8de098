/**
 * GraphQL over HTTP (GET and POST on /graphql), spec compliant through graphql-http. Parsing,
 * validation and limits go through the shared OperationPreparer (cached per query text), and
 * execution through the shared OperationExecutor (graphql-jit, graphql-js where it must), so HTTP
 * refuses and runs exactly what the WebSocket transport does.
 *
 * The common request takes a shorter road than graphql-http's pipeline (see answerDirectly): a POST
 * of a JSON body whose query the caches already hold as a valid, compiled operation. It gives the
 * answer graphql-http would give, byte for byte (test/graphql/http-direct.test.ts mounts
 * graphqlHttpPipeline alone beside it and compares the two); everything else (GET, other media
 * types, malformed parameters, refused or uncompilable operations) goes through graphql-http
 * unchanged.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { GraphQLError, type ExecutionResult, type GraphQLSchema } from 'graphql';
import { createHandler } from 'graphql-http';
import type { Principal } from '../auth/principal.ts';
import type { GraphQLRequestContext } from './context.ts';
import { mapGraphQLError } from './errors.ts';
import type { OperationExecutor } from './execute.ts';
import type { DataSerializer } from './execute.ts';
import type { OperationPreparer } from './operation.ts';
import { paramsOfObject, paramsOfUrl, requestError, urlOf, type RequestParams } from './request-params.ts';
import type { Admission, TrustedDocuments } from './trusted/trusted-documents.ts';

function isExecutionResult(value: unknown): value is ExecutionResult {
  return typeof value === 'object' && value !== null && !(Symbol.asyncIterator in value);
}

interface PipelineOptions {
  schema: GraphQLSchema;
  preparer: OperationPreparer;
  executor: OperationExecutor;
  /**
   * The context of one operation, from the principal the scope's authentication hook put on the
   * request and the request's client address (`request.ip`, which follows TRUST_PROXY).
   */
  context: (principal: Principal | null, clientAddress: string) => GraphQLRequestContext;
}

interface GraphQLHttpOptions extends PipelineOptions {
  /** Where to serve; `/graphql` unless a caller (the benchmark) mounts a second schema elsewhere. */
  url?: string;
  /**
   * Trusted documents: ids resolved to their text, and, when enforced, every other text refused.
   * None: requests run as sent (the mock server, the benchmark's reference mounts).
   */
  trusted?: TrustedDocuments;
}

const GRAPHQL_RESPONSE_JSON = 'application/graphql-response+json; charset=utf-8';
const JSON_UTF8 = 'application/json; charset=utf-8';

/**
 * The response media type graphql-http negotiates for this Accept header (the same walk as its
 * handler: the first acceptable entry wins), or null when it would answer 406.
 */
function negotiatedMediaType(accept: string | undefined): string | null {
  if (accept === lastAccept) return lastMediaType;
  lastMediaType = negotiate(accept);
  lastAccept = accept;
  return lastMediaType;
}

/** Clients send the same Accept header request after request: remember the last answer. */
let lastAccept: string | undefined = '*/*';
let lastMediaType: string | null = JSON_UTF8;

function negotiate(accept: string | undefined): string | null {
  for (const entry of (accept || '*/*').replace(/\s/g, '').toLowerCase().split(',')) {
    const [mediaType, ...params] = entry.split(';');
    const charset = params.find((p) => p.includes('charset=')) ?? 'charset=utf-8';
    if (mediaType === 'application/graphql-response+json' && charset === 'charset=utf-8') return GRAPHQL_RESPONSE_JSON;
    if (
      (mediaType === 'application/json' || mediaType === 'application/*' || mediaType === '*/*') &&
      (charset === 'charset=utf-8' || charset === 'charset=utf8')
    ) {
      return JSON_UTF8;
    }
  }
  return null;
}

/** What graphql-http's refusals without a body say. */
const REFUSALS: Record<number, string> = {
  405: 'Only queries may be sent with GET; send mutations with POST',
  406: 'The Accept header allows neither application/graphql-response+json nor application/json',
  415: 'Send the request as application/json (POST) or as query parameters (GET)',
};

/** A JSON object that is not an array (graphql-http's test for `variables` and `extensions`). */
function isOptionalObject(value: unknown): value is Record<string, unknown> | null | undefined {
  return value == null || (typeof value === 'object' && !Array.isArray(value));
}

/** How errors and results are written: errors mapped by errors.ts, unknown errors logged. */
function resultWriters(app: FastifyInstance) {
  const log = (err: unknown) => app.log.error({ err }, 'GraphQL resolver failed');
  const format = (error: GraphQLError) => mapGraphQLError(error, log);
  // Executed operations are serialised here rather than by graphql-http, which stringifies with a
  // replacer function (called for every key of the response, doubling the cost of serialisation)
  // only to turn stray Error objects into { message }. Our results hold none: data is serialised
  // scalars, and every error is a GraphQLError mapped by errors.ts, whose toJSON applies.
  const serialize = (result: ExecutionResult) => JSON.stringify(result.errors ? { ...result, errors: result.errors.map(format) } : result);
  return { format, serialize };
}

/** Answers a request through Fastify; `url`: the request's, or another (a GET's admitted parameters). */
type Answer = (request: FastifyRequest, reply: FastifyReply, url?: string) => Promise<void>;

/**
 * graphql-http's pipeline over the shared preparer and executor: how /graphql answers every request
 * the direct path leaves to it. Its bodiless refusals (405, 406, 415) get an error too.
 */
export function graphqlHttpPipeline(app: FastifyInstance, { schema, preparer, executor, context }: PipelineOptions): Answer {
  const { format, serialize } = resultWriters(app);
  const handler = createHandler<FastifyRequest, { reply: FastifyReply }, GraphQLRequestContext>({
    schema,
    onSubscribe: (req, params) => {
      const prepared = preparer.prepare(params);
      if (Array.isArray(prepared)) return prepared as readonly GraphQLError[];
      return {
        schema,
        document: prepared as Exclude<typeof prepared, readonly GraphQLError[]>,
        operationName: params.operationName,
        variableValues: params.variables,
        contextValue: context(req.raw.principal, req.raw.ip),
      };
    },
    execute: executor.execute,
    // The status is what graphql-http gives every execution result: 200.
    onOperation: (req, _args, result) => {
      if (!isExecutionResult(result)) return;
      return [
        serialize(result),
        { status: 200, statusText: 'OK', headers: { 'content-type': negotiatedMediaType(req.raw.headers.accept) ?? JSON_UTF8 } },
      ];
    },
    // Everything refused before execution (parse, validation, limits) is a GraphQLError; graphql-http's
    // own refusals of the request's parameters (no query, variables not an object…) are plain Errors,
    // which get the errorType every error carries.
    formatError: (error) => (error instanceof GraphQLError ? format(error) : requestError(error.message)),
  });

  return async (request, reply, url = request.url) => {
    const [body, init] = await handler({
      url,
      method: request.method,
      headers: request.headers,
      // Parsed by Fastify (any JSON value); graphql-http checks its shape itself.
      body: (request.body ?? null) as Record<string, unknown> | null,
      raw: request,
      context: { reply },
    });
    const headers = { ...(init.headers ?? {}) } as Record<string, string>;
    let payload = body;
    if (init.status >= 400 && !headers['content-type']) {
      // graphql-http's refusals that carry no media type: none or no body (405, 406, 415), or errors
      // made outside formatError (a mutation over GET).
      const written = typeof body === 'string' ? (JSON.parse(body) as { errors?: GraphQLError[] }).errors : undefined;
      const errors = written?.length
        ? written.map((error) => requestError(error.message))
        : [requestError(REFUSALS[init.status] ?? init.statusText ?? 'The request was refused')];
      payload = JSON.stringify({ errors });
      headers['content-type'] = JSON_UTF8;
    }
    reply
      .status(init.status)
      .headers(headers)
      .send(payload ?? undefined);
  };
}

export function registerGraphQLHttp(
  app: FastifyInstance,
  { schema, preparer, executor, context, url = '/graphql', trusted }: GraphQLHttpOptions,
): void {
  const { format, serialize } = resultWriters(app);
  const throughGraphqlHttp = graphqlHttpPipeline(app, { schema, preparer, executor, context });

  /**
   * Answers the request if it is the common case and returns true (or a promise settled once the
   * reply is sent); returns false, having done nothing visible, for graphql-http to handle it. The
   * checks are graphql-http's own, in its order: the Accept header, POST with `application/json`
   * (charset utf-8 or none), a JSON object body whose query is a string, variables and extensions
   * objects, operationName a string. Then the operation: refused by the preparer (syntax,
   * validation, limits), it gets graphql-http's error response (200 under application/json, 400
   * under application/graphql-response+json); accepted, it must be compiled by graphql-jit, which
   * implies a query or mutation: a subscription, an unknown operation name or an operation
   * graphql-jit refused all fall through, and graphql-http answers with its own errors.
   */
  const answerDirectly = (request: FastifyRequest, reply: FastifyReply): boolean | Promise<void> => {
    const mediaType = negotiatedMediaType(request.headers.accept);
    const contentType = request.headers['content-type'];
    if (mediaType === null || request.method !== 'POST' || (contentType !== 'application/json' && contentType !== JSON_UTF8)) return false;
    const body = request.body as Record<string, unknown> | null | undefined;
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return false;
    const { query, variables, operationName, extensions } = body;
    if (typeof query !== 'string' || !isOptionalObject(variables) || !isOptionalObject(extensions)) return false;
    if (operationName != null && typeof operationName !== 'string') return false;

    const prepared = preparer.prepare({ query, variables, operationName });
    if (Array.isArray(prepared)) {
      const errors = prepared as readonly GraphQLError[];
      reply
        .code(mediaType === JSON_UTF8 ? 200 : 400)
        .header('content-type', mediaType)
        .send(JSON.stringify({ errors: errors.map(format) }));
      return true;
    }
    const document = prepared as Exclude<typeof prepared, readonly GraphQLError[]>;
    const operation = executor.compiledFor(document, operationName);
    if (operation === null) return false;
    const args = { schema, document, operationName, variableValues: variables, contextValue: context(request.principal, request.ip) };
    const result = executor.run(operation, args);
    if (result instanceof Promise) return result.then((executed) => sendResult(reply, mediaType, executed, operation.serialize));
    sendResult(reply, mediaType, result, operation.serialize);
    return true;
  };

  /** A result without errors goes through the operation's serializer (JSON.stringify, or a plan's text). */
  const sendResult = (reply: FastifyReply, mediaType: string, result: ExecutionResult, serializeData: DataSerializer): void => {
    reply
      .code(200)
      .header('content-type', mediaType)
      .send(result.errors ? serialize(result) : serializeData(result));
  };

  const answer = (request: FastifyRequest, reply: FastifyReply, url?: string): Promise<void> | undefined => {
    const answered = answerDirectly(request, reply);
    if (answered === false) return throughGraphqlHttp(request, reply, url);
    return answered === true ? undefined : answered;
  };

  /**
   * Answers as admitted: refused, or run with exactly the parameters admitted (the query the
   * documentId names in place of the text), which replace the request's own: graphql-http reads
   * the URL or body it is handed, never the request as sent.
   */
  const answerAdmitted = (
    request: FastifyRequest,
    reply: FastifyReply,
    params: RequestParams,
    admission: Admission,
  ): Promise<void> | undefined => {
    if ('error' in admission) {
      const mediaType = negotiatedMediaType(request.headers.accept) ?? JSON_UTF8;
      reply
        .code(mediaType === JSON_UTF8 ? 200 : 400)
        .header('content-type', mediaType)
        .send(JSON.stringify({ errors: [format(admission.error)] }));
      return undefined;
    }
    const { operationName, variables, extensions } = params;
    const admitted: RequestParams = { query: admission.query ?? params.query, operationName, variables, extensions };
    if (request.method === 'GET') return answer(request, reply, urlOf(request.url, admitted));
    request.body = admitted;
    return answer(request, reply);
  };

  /** A request whose parameters are in no admissible shape: graphql-http's answer to a malformed parameter. */
  const refuseParams = (reply: FastifyReply, error: GraphQLError): undefined => {
    reply
      .code(400)
      .header('content-type', JSON_UTF8)
      .send(JSON.stringify({ errors: [error] }));
    return undefined;
  };

  app.route({
    method: ['GET', 'POST'],
    url,
    handler(request, reply) {
      if (!trusted) return answer(request, reply);
      const body = request.body;
      // Bodies that are no JSON object are graphql-http's to refuse.
      if (request.method !== 'GET' && (typeof body !== 'object' || body === null || Array.isArray(body))) return answer(request, reply);
      const read = request.method === 'GET' ? paramsOfUrl(request.url) : paramsOfObject(body as Record<string, unknown>);
      if ('error' in read) return refuseParams(reply, read.error);
      const admission = trusted.admit(read.params);
      if (admission instanceof Promise) return admission.then((admitted) => answerAdmitted(request, reply, read.params, admitted));
      return answerAdmitted(request, reply, read.params, admission);
    },
  });
}
