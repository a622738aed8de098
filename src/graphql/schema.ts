import { makeExecutableSchema } from '@graphql-tools/schema';
import type { GraphQLSchema } from 'graphql';
import { typeDefs } from '../../generated/graphql/typedefs.ts';
import { resolvers } from './resolvers.ts';

/** The executable schema: the SDL in schema/ (via generated/) plus the resolvers in src/. */
export function buildGraphQLSchema(): GraphQLSchema {
  return makeExecutableSchema({ typeDefs, resolvers: resolvers as never });
}
