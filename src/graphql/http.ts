/** GraphQL over HTTP (GET and POST on /graphql) through graphql-http, spec compliant. */
import type { FastifyInstance } from 'fastify';
import type { GraphQLSchema } from 'graphql';
import { createHandler } from 'graphql-http/lib/use/fastify';
import type { Services } from '../services.ts';
import { createContext, type GraphQLContext } from './context.ts';
import { mapGraphQLError } from './errors.ts';
import { GraphQLError } from 'graphql';

export function registerGraphQLHttp(app: FastifyInstance, schema: GraphQLSchema, services: Services): void {
  const handler = createHandler<GraphQLContext>({
    schema,
    context: (req) => createContext(req.raw.principal, services),
    formatError: (error) =>
      error instanceof GraphQLError ? mapGraphQLError(error, (e) => app.log.error({ err: e }, 'GraphQL resolver failed')) : error,
  });
  app.route({ method: ['GET', 'POST'], url: '/graphql', handler });
}
