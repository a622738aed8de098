/**
 * Assembles every area's resolvers into the one map the schema is built from. Declared as
 * `StrictResolvers`, so a field added to the SDL without a resolver (or a row column of the same
 * name) fails `npm run typecheck`.
 */
import { GraphQLScalarType } from 'graphql';
import { DateTimeResolver, JSONResolver } from 'graphql-scalars';
import type { StrictResolvers } from '../../generated/graphql/resolvers.ts';
import { commentFields, commentMutations, commentSubscriptions } from '../content/comments.resolvers.ts';
import { postFields, postMutations, postQueries, postSubscriptions } from '../content/posts.resolvers.ts';
import { tagFields } from '../content/tags.resolvers.ts';
import { userFields, userMutations, userQueries } from '../content/users.resolvers.ts';

export const resolvers: StrictResolvers = {
  DateTime: DateTimeResolver,
  // graphql-scalars names its scalar `JSON`; a scalar object in the resolver map replaces the SDL's
  // type wholesale, so without the rename the schema would publish `JSON` instead of `Json`.
  Json: new GraphQLScalarType({ ...JSONResolver.toConfig(), name: 'Json' }),
  Query: { ...userQueries, ...postQueries },
  Mutation: { ...userMutations, ...postMutations, ...commentMutations },
  Subscription: { ...postSubscriptions, ...commentSubscriptions },
  User: userFields,
  Post: postFields,
  Comment: commentFields,
  Tag: tagFields,
};
