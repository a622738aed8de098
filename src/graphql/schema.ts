import { makeExecutableSchema } from '@graphql-tools/schema';
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
  const executable = makeExecutableSchema({ typeDefs, resolvers: resolvers as never });
  return applyAuthDirectives(applyConstraintDirective(executable));
}
