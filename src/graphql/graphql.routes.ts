/**
 * Everything GraphQL on the HTTP server: POST/GET /graphql, the WebSocket on the same path, and,
 * when enabled, the schema printout and the explorer. app.ts calls this once.
 */
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.ts';
import { ContentEventListener } from '../content/content-events.listener.ts';
import type { DatabaseHandle } from '../db/database.ts';
import type { Services } from '../services.ts';
import { createContext } from './context.ts';
import { OperationExecutor } from './execute.ts';
import { registerGraphiQL, registerSchemaPrintout } from './explorer.ts';
import { registerGraphQLHttp } from './http.ts';
import { DEFAULT_MAX_ALIASES, DEFAULT_MAX_QUERY_LENGTH, type GraphQLLimits } from './limits.ts';
import { OperationPreparer } from './operation.ts';
import { buildGraphQLSchema } from './schema.ts';
import { registerGraphQLWs } from './ws.ts';

export interface GraphQLDependencies {
  config: Config;
  database: DatabaseHandle;
  services: Services;
  /** The HS256 secret of bearer tokens, for the credential of WebSocket connections. */
  jwtSecret: string;
}

/** The limits every GraphQL operation is held to, from configuration. */
export function graphqlLimits(config: Config): GraphQLLimits {
  return {
    maxDepth: config.graphqlMaxDepth,
    maxComplexity: config.graphqlMaxComplexity,
    maxAliases: DEFAULT_MAX_ALIASES,
    maxQueryLength: DEFAULT_MAX_QUERY_LENGTH,
  };
}

export async function registerGraphQL(app: FastifyInstance, { config, database, services, jwtSecret }: GraphQLDependencies): Promise<void> {
  const schema = buildGraphQLSchema();
  const preparer = new OperationPreparer(schema, graphqlLimits(config));
  const events = await ContentEventListener.open(database, app.log);
  // After the HTTP server has stopped (sockets are gone), and before the database closes.
  app.addHook('onClose', async () => events.close());

  const executor = new OperationExecutor(schema, {
    onCompileError: (errors, operationName) =>
      app.log.warn({ errors, operationName }, 'GraphQL operation runs on graphql-js: graphql-jit cannot compile it'),
  });

  registerGraphQLHttp(app, { schema, preparer, executor, context: (principal) => createContext(principal, services) });
  registerGraphQLWs(app, {
    schema,
    services,
    preparer,
    executor,
    events,
    jwtSecret,
    initTimeoutMs: config.graphqlWsInitTimeoutMs,
    keepAliveMs: config.graphqlWsKeepAliveMs,
  });
  if (config.graphqlSchemaPrintout) registerSchemaPrintout(app);
  if (config.graphiql) registerGraphiQL(app);
}
