import type { StrictResolversOf } from '../../generated/graphql/resolvers.ts';

/** The resolvers of schema/tags.graphql (its generated type: a field added there without one fails here). */
export const tagsResolvers: StrictResolversOf<'tags'> = {
  Tag: {
    postCount: (tag, _args, { loaders }) => loaders.tagPostCount.load(tag.id),
  },
};
