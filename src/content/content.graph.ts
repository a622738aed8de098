/**
 * The content graph served at /graphql: every resolver of the SDL in schema/, assembled into one
 * map declared as `StrictResolvers` (so a field added to the SDL without a resolver, or a row
 * column of the same name, fails `npm run typecheck`), and the context each operation receives.
 * src/app.ts hands it to the GraphQL plugin, which knows no area.
 */
import { GraphQLScalarType, type GraphQLSchema } from 'graphql';
import { DateTimeResolver, JSONResolver } from 'graphql-scalars';
import type { StrictResolvers } from '../../generated/graphql/resolvers.ts';
import type { GraphQLGraph } from '../graphql/context.ts';
import { buildGraphQLSchema } from '../graphql/schema.ts';
import { commentFields, commentMutations, commentSubscriptions } from './comments.resolvers.ts';
import { createContentContext, type ContentServices } from './content.context.ts';
import { ContentEventListener } from './content-events.listener.ts';
import { postFields, postMutations, postQueries, postSubscriptions } from './posts.resolvers.ts';
import { tagFields } from './tags.resolvers.ts';
import { userFields, userMutations, userQueries } from './users.resolvers.ts';

const contentResolvers: StrictResolvers = {
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

/** The executable schema of the content graph (the SDL with its directives over contentResolvers). */
export function buildContentSchema(): GraphQLSchema {
  return buildGraphQLSchema(contentResolvers);
}

/** The graph for the GraphQL plugin: subscriptions read the content events of one LISTEN per instance. */
export function contentGraph(services: ContentServices): GraphQLGraph {
  return {
    resolvers: contentResolvers,
    async open(database, log) {
      const events = await ContentEventListener.open(database, log);
      return {
        context: (principal, clientAddress, transport) =>
          createContentContext(principal, services, transport === 'ws' ? events : null, clientAddress),
        close: () => events.close(),
      };
    },
  };
}
