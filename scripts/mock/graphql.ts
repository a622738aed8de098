/**
 * GraphQL of the mock server: the project's schema (the SDL in schema/, through generated/) with
 * every field answered by @graphql-tools/mock, served by the server's own registerGraphQLHttp
 * (src/graphql/http.ts) over graphql-http, with the server's limits (depth, aliases, complexity) and
 * schema directives: an operation the server refuses, the mock refuses with the same errors.
 *
 * The values are @graphql-tools/mock's: random within the types (graphql-scalars' mocks for the
 * custom scalars), lists of two; nothing is stored, so a mutation's result is not what a later query
 * reads. Every bearer token holds every role (mock-server.ts), so @authenticated and @hasRole refuse
 * only an anonymous caller.
 */
import { addMocksToSchema } from '@graphql-tools/mock';
import { makeExecutableSchema } from '@graphql-tools/schema';
import type { FastifyInstance } from 'fastify';
import { DateTimeMock, JSONMock } from 'graphql-scalars';
import { typeDefs } from '../../generated/graphql/typedefs.ts';
import type { Config } from '../../src/config.ts';
import { applyAuthDirectives } from '../../src/graphql/directives.auth.ts';
import { applyConstraintDirective } from '../../src/graphql/directives.constraint.ts';
import { OperationExecutor } from '../../src/graphql/execute.ts';
import { registerGraphQLHttp } from '../../src/graphql/http.ts';
import { graphqlLimits } from '../../src/graphql/limits.ts';
import { OperationPreparer } from '../../src/graphql/operation.ts';

export function registerMockGraphQL(http: FastifyInstance, config: Config): void {
  const mocked = addMocksToSchema({
    schema: makeExecutableSchema({ typeDefs }),
    mocks: { DateTime: DateTimeMock, Json: JSONMock },
  });
  // The directives wrap the mock resolvers as they wrap the real ones (src/graphql/schema.ts), in the same order.
  const schema = applyAuthDirectives(applyConstraintDirective(mocked));
  registerGraphQLHttp(http, {
    schema,
    preparer: new OperationPreparer(schema, graphqlLimits(config)),
    executor: new OperationExecutor(schema),
    context: (principal) => ({ principal }),
  });
}
