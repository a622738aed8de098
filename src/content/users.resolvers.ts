import type { UsersRow } from '../../generated/db/types.ts';
import type { StrictResolversOf } from '../../generated/graphql/resolvers.ts';
import { requirePrincipal } from '../graphql/context.ts';
import type { Page } from '../paging.ts';
import { DEFAULT_LIST_LIMIT, DEFAULT_NESTED_SIZE, DEFAULT_SEARCH_LIMIT, DEFAULT_USERS_SIZE } from './argument-defaults.ts';
import { columnResolvers, FIELD_COLUMNS } from './field-columns.ts';

/** The GraphQL connection shape of a service page. */
export function toConnection<T>(page: Page<T>) {
  return { content: page.items, totalElements: page.totalElements, totalPages: page.totalPages, hasNext: page.hasNext };
}

/**
 * The resolvers of schema/users.graphql, declared with its generated type: a field added there
 * without a resolver fails to compile here, at its type's entry.
 */
export const usersResolvers: StrictResolversOf<'users'> = {
  Query: {
    user: (_parent, { id }, { services }) => services.users.get(id),
    users: async (_parent, { page, size }, { services, principal }) =>
      toConnection(await services.users.list(principal, page ?? 0, size ?? DEFAULT_USERS_SIZE)),
    searchUsers: (_parent, { query, limit }, { services, principal }) =>
      services.users.search(principal, query, limit ?? DEFAULT_SEARCH_LIMIT),
    allUsers: (_parent, _args, context) => context.services.users.all(requirePrincipal(context)),
  },
  Mutation: {
    createUser: (_parent, { input }, { services, clientAddress }) => services.users.signUp(input, clientAddress),
    updateUser: (_parent, { id, input }, context) => context.services.users.update(requirePrincipal(context), id, input),
    deleteUser: (_parent, { id }, context) => context.services.users.delete(requirePrincipal(context), id),
    followUser: (_parent, { userId }, context) => context.services.users.follow(requirePrincipal(context), userId),
    unfollowUser: (_parent, { userId }, context) => context.services.users.unfollow(requirePrincipal(context), userId),
  },
  User: {
    ...columnResolvers<UsersRow, typeof FIELD_COLUMNS.User>(FIELD_COLUMNS.User),
    posts: async (user, { page, size }, { loaders }) =>
      toConnection(await loaders.postsByAuthor(page ?? 0, size ?? DEFAULT_NESTED_SIZE).load(user.id)),
    followers: (user, { limit }, { loaders }) => loaders.followers(limit ?? DEFAULT_LIST_LIMIT).load(user.id),
    following: (user, { limit }, { loaders }) => loaders.following(limit ?? DEFAULT_LIST_LIMIT).load(user.id),
    followerCount: (user, _args, { loaders }) => loaders.followerCount.load(user.id),
  },
};
