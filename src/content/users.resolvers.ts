import type { PostsRow, UsersRow } from '../../generated/db/types.ts';
import type { StrictResolversOf } from '../../generated/graphql/resolvers.ts';
import { requirePrincipal } from '../graphql/context.ts';
import type { Page } from '../paging.ts';
import { DEFAULT_LIST_LIMIT, DEFAULT_NESTED_SIZE, DEFAULT_SEARCH_LIMIT, DEFAULT_USERS_SIZE } from './argument-defaults.ts';
import { plannedValue } from './planner/content-planner.ts';

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
    // The planner reads the whole covered selection in one statement; undefined: not planned.
    user: async (_parent, { id }, { services, principal }, info) =>
      ((await services.planner?.user(info, principal, id)) as UsersRow | undefined) ?? services.users.get(id),
    users: async (_parent, { page, size }, { services, principal }, info) =>
      ((await services.planner?.users(info, principal, page ?? 0, size ?? DEFAULT_USERS_SIZE)) as
        | ReturnType<typeof toConnection<UsersRow>>
        | undefined) ?? toConnection(await services.users.list(principal, page ?? 0, size ?? DEFAULT_USERS_SIZE)),
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
    displayName: (user) => user.display_name,
    avatarUrl: (user) => user.avatar_url,
    createdAt: (user) => user.created_at,
    posts: async (user, { page, size }, { loaders }, info) =>
      (plannedValue(user, info) as ReturnType<typeof toConnection<PostsRow>> | undefined) ??
      toConnection(await loaders.postsByAuthor(page ?? 0, size ?? DEFAULT_NESTED_SIZE).load(user.id)),
    followers: (user, { limit }, { loaders }) => loaders.followers(limit ?? DEFAULT_LIST_LIMIT).load(user.id),
    following: (user, { limit }, { loaders }) => loaders.following(limit ?? DEFAULT_LIST_LIMIT).load(user.id),
    followerCount: (user, _args, { loaders }, info) =>
      (plannedValue(user, info) as number | undefined) ?? loaders.followerCount.load(user.id),
  },
};
