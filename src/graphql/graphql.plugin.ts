/**
 * The GraphQL area: POST/GET /graphql and the WebSocket on the same path in a scope with bearer
 * authentication whose error handler answers a refused token in GraphQL's shape, and, when enabled,
 * the schema printout and the explorer (public pages, no authentication).
 */
import type { FastifyError, FastifyPluginAsync } from 'fastify';
import type { Authenticator } from '../auth/authenticate.ts';
import { bearerAuthentication } from '../auth/bearer-hook.ts';
import type { CredentialVerifier } from '../auth/credentials.ts';
import type { Config } from '../config.ts';
import type { DatabaseHandle } from '../db/database.ts';
import { AppError } from '../errors.ts';
import { clientAddressResolver } from '../http/client-address.ts';
import { sendProblem } from '../http/http-server.ts';
import { lingerBeforeClosing } from '../http/lingering-close.ts';
import { toProblem } from '../http/problem.ts';
import type { GraphQLGraph } from './context.ts';
import { errorTypeOf } from './errors.ts';
import { OperationExecutor, type OperationWrapper } from './execute.ts';
import { registerGraphiQL, registerSchemaPrintout } from './explorer.ts';
import { registerGraphQLHttp } from './http.ts';
import { graphqlLimits } from './limits.ts';
import { OperationPreparer } from './operation.ts';
import { buildGraphQLSchema } from './schema.ts';
import { sdkDocuments } from './trusted/sdk-documents.ts';
import { TrustedDocuments } from './trusted/trusted-documents.ts';
import { registerGraphQLWs } from './ws.ts';

interface GraphQLOptions {
  config: Config;
  database: DatabaseHandle;
  /** The graph served (src/content/content.graph.ts): its resolvers and each operation's context. */
  graph: GraphQLGraph;
  authenticate: Authenticator;
  /** Verifies the credential of WebSocket connections, as `authenticate` does on HTTP. */
  verifier: CredentialVerifier;
  /** Runs around every operation (tracing); none by default. */
  aroundOperation?: OperationWrapper;
}

export const graphqlPlugin: FastifyPluginAsync<GraphQLOptions> = async (
  scope,
  { config, database, graph, authenticate, verifier, aroundOperation },
) => {
  const schema = buildGraphQLSchema(graph.resolvers);
  const preparer = new OperationPreparer(schema, graphqlLimits(config));
  const trusted = new TrustedDocuments(database.db, config.graphqlTrustedDocuments, sdkDocuments());
  const served = await graph.open(database, scope.log);
  // After the HTTP server has stopped (sockets are gone), and before the database closes.
  scope.addHook('onClose', async () => served.close());

  const executor = new OperationExecutor(schema, {
    onCompileError: (errors, operationName) =>
      scope.log.warn({ errors, operationName }, 'GraphQL operation runs on graphql-js: graphql-jit cannot compile it'),
    ...(aroundOperation ? { around: aroundOperation } : {}),
    ...(graph.plan ? { plan: graph.plan } : {}),
  });

  await scope.register(async (api) => {
    api.addHook('onRequest', bearerAuthentication(authenticate));
    api.setErrorHandler((error: FastifyError, request, reply) => {
      // GraphQL clients get GraphQL-shaped errors for what is refused before GraphQL sees the request
      // too (a bad token, a body the parser refuses, one too large or too deep), with the status.
      if (error instanceof AppError && error.code === 'UNAUTHENTICATED') {
        return reply
          .code(401)
          .type('application/json; charset=utf-8')
          .send({ errors: [{ message: error.message, extensions: { errorType: 'UNAUTHORIZED' } }] });
      }
      const problem = toProblem(error, request.url);
      if (problem.status >= 500) return sendProblem(error, request, reply);
      if (!request.raw.complete) {
        reply.header('Connection', 'close');
        lingerBeforeClosing(request.raw);
      }
      return reply
        .code(problem.status)
        .type('application/json; charset=utf-8')
        .send({
          errors: [
            {
              message: problem.detail,
              extensions: { errorType: errorTypeOf(problem.status), code: problem.type.replace('/problems/', '') },
            },
          ],
        });
    });
    registerGraphQLHttp(api, {
      schema,
      preparer,
      executor,
      context: (principal, clientAddress) => served.context(principal, clientAddress, 'http'),
      trusted,
    });
  });
  await registerGraphQLWs(scope, {
    schema,
    context: served.context,
    preparer,
    executor,
    database,
    verifier,
    initTimeoutMs: config.graphqlWsInitTimeoutMs,
    keepAliveMs: config.graphqlWsKeepAliveMs,
    limits: config.graphqlWsLimits,
    clientAddress: clientAddressResolver(config.trustProxy),
    trusted,
  });
  if (config.graphqlSchemaPrintout) registerSchemaPrintout(scope);
  if (config.graphiql) registerGraphiQL(scope);
};
