import type { TagResolvers } from '../../generated/graphql/resolvers.ts';

export const tagFields = {
  postCount: (tag, _args, { loaders }) => loaders.tagPostCount.load(tag.id),
} satisfies TagResolvers;
