import { makeExecutableSchema } from '@graphql-tools/schema';
import type { IResolvers } from '@graphql-tools/utils';
import type { GraphQLSchema } from 'graphql';
import { typeDefs } from '../../generated/graphql/typedefs.ts';
import { applyAuthDirectives } from './directives.auth.ts';
import { applyConstraintDirective } from './directives.constraint.ts';

/**
 * The executable schema: the SDL in schema/ (via generated/) over the resolver map the area that owns
 * the graph hands in (src/content/content.graph.ts), with the schema directives applied.
 * Authorization wraps last so it runs first: an anonymous caller learns "Authentication required",
 * not which of its arguments were invalid.
 */
export function buildGraphQLSchema(resolverMap: IResolvers): GraphQLSchema {
  const executable = makeExecutableSchema({ typeDefs, resolvers: resolverMap });
  return applyAuthDirectives(applyConstraintDirective(executable));
}
