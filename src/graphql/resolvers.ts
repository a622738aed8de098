/** Assembles every area's resolvers into the one map the schema is built from. */
import { DateTimeResolver, JSONResolver } from 'graphql-scalars';
import type { Resolvers } from '../../generated/graphql/resolvers.ts';
import { userFields, userMutations, userQueries } from '../content/users.resolvers.ts';

export const resolvers: Resolvers = {
  DateTime: DateTimeResolver,
  Json: JSONResolver,
  Query: { ...userQueries },
  Mutation: { ...userMutations },
  User: userFields,
};
