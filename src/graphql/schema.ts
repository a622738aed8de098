import { makeExecutableSchema } from '@graphql-tools/schema';
import type { IResolvers } from '@graphql-tools/utils';
import type { GraphQLSchema } from 'graphql';
import { typeDefs } from '../../generated/graphql/typedefs.ts';
import { applyAuthDirectives } from './directives.auth.ts';
import { applyConstraintDirective } from './directives.constraint.ts';
import { resolvers } from './resolvers.ts';

/**
 * The executable schema: the SDL in schema/ (via generated/) plus the resolvers in src/, with the
 * schema directives applied. Authorization wraps last so it runs first: an anonymous caller learns
 * "Authentication required", not which of its arguments were invalid.
 */
export function buildGraphQLSchema(): GraphQLSchema {
  return buildGraphQLSchemaWith(resolvers);
}

/**
 * The same SDL and directives over another resolver map. Only the benchmark uses it (its in-memory
 * variant serves users → posts → author without a database); production always goes through
 * buildGraphQLSchema, whose map is checked complete by StrictResolvers.
 */
export function buildGraphQLSchemaWith(resolverMap: IResolvers): GraphQLSchema {
  const executable = makeExecutableSchema({ typeDefs, resolvers: resolverMap });
  return applyAuthDirectives(applyConstraintDirective(executable));
}
