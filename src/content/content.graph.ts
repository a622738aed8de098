/**
 * The content graph served at /graphql: the resolvers of each SDL file in schema/, each written in
 * its area's resolvers file and declared there with the file's generated `StrictResolversOf<'<file>'>`
 * (so a field added to schema/posts.graphql without a resolver fails `npm run typecheck` in
 * posts.resolvers.ts), merged here into one map that is `StrictResolvers` as a whole, and the context
 * each operation receives. src/app.ts hands it to the GraphQL plugin, which knows no area.
 */
import { GraphQLScalarType, type GraphQLSchema } from 'graphql';
import { DateTimeResolver, JSONResolver } from 'graphql-scalars';
import type { StrictResolvers, StrictResolversByFile, StrictResolversOf } from '../../generated/graphql/resolvers.ts';
import type { GraphQLGraph } from '../graphql/context.ts';
import { buildGraphQLSchema } from '../graphql/schema.ts';
import { commentsResolvers } from './comments.resolvers.ts';
import { createContentContext, type ContentServices } from './content.context.ts';
import { ContentEventListener } from './content-events.listener.ts';
import { postsResolvers } from './posts.resolvers.ts';
import { tagsResolvers } from './tags.resolvers.ts';
import { usersResolvers } from './users.resolvers.ts';

type SdlFile = keyof StrictResolversByFile;

/** Each SDL file's resolvers, by file: an SDL file that needs resolvers and has no area file fails here. */
const areas: { [File in SdlFile]: StrictResolversOf<File> } = {
  comments: commentsResolvers,
  posts: postsResolvers,
  tags: tagsResolvers,
  users: usersResolvers,
};

type Intersection<U> = (U extends unknown ? (part: U) => void : never) extends (whole: infer I) => void ? I : never;

/** The areas' maps as one: each type's fields from every file that declares or extends it. */
function mergeAreas(parts: typeof areas): Intersection<StrictResolversOf<SdlFile>> {
  const merged: Record<string, Record<string, unknown>> = {};
  for (const part of Object.values<Record<string, Record<string, unknown>>>(parts)) {
    for (const [type, fields] of Object.entries(part)) merged[type] = { ...merged[type], ...fields };
  }
  return merged as Intersection<StrictResolversOf<SdlFile>>;
}

const contentResolvers: StrictResolvers = {
  DateTime: DateTimeResolver,
  // graphql-scalars names its scalar `JSON`; a scalar object in the resolver map replaces the SDL's
  // type wholesale, so without the rename the schema would publish `JSON` instead of `Json`.
  Json: new GraphQLScalarType({ ...JSONResolver.toConfig(), name: 'Json' }),
  ...mergeAreas(areas),
};

/** The executable schema of the content graph (the SDL with its directives over contentResolvers). */
export function buildContentSchema(): GraphQLSchema {
  return buildGraphQLSchema(contentResolvers);
}

/** The graph for the GraphQL plugin: subscriptions read the content events of one LISTEN per instance. */
export function contentGraph(services: ContentServices): GraphQLGraph {
  const planner = services.planner;
  return {
    resolvers: contentResolvers,
    ...(planner ? { plan: (schema, document, operationName) => planner.planOperation(schema, document, operationName) } : {}),
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
