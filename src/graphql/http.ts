/**
 * GraphQL over HTTP (GET and POST on /graphql) through graphql-http, spec compliant. Parsing,
 * validation and limits go through the shared OperationPreparer, so HTTP refuses exactly what the
 * WebSocket transport refuses.
 */
import type { FastifyInstance } from 'fastify';
import { GraphQLError, type GraphQLSchema } from 'graphql';
import { createHandler } from 'graphql-http/lib/use/fastify';
import type { Services } from '../services.ts';
import { createContext, type GraphQLContext } from './context.ts';
import { mapGraphQLError } from './errors.ts';
import type { OperationPreparer } from './operation.ts';

export function registerGraphQLHttp(app: FastifyInstance, schema: GraphQLSchema, services: Services, preparer: OperationPreparer): void {
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
        contextValue: createContext(req.raw.principal, services),
      };
    },
    formatError: (error) =>
      error instanceof GraphQLError ? mapGraphQLError(error, (e) => app.log.error({ err: e }, 'GraphQL resolver failed')) : error,
  });
  app.route({ method: ['GET', 'POST'], url: '/graphql', handler });
}
