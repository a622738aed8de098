import type { MutationResolvers, QueryResolvers, UserResolvers } from '../../generated/graphql/resolvers.ts';
import type { Page } from '../paging.ts';

export function toConnection<T>(page: Page<T>) {
  return { content: page.items, totalElements: page.totalElements, totalPages: page.totalPages, hasNext: page.hasNext };
}

export const userQueries = {
  user: (_parent, { id }, { services }) => services.users.get(id),
  users: async (_parent, { page, size }, { services }) => toConnection(await services.users.list(page, size)),
} satisfies Pick<QueryResolvers, 'user' | 'users'>;

export const userMutations = {
  createUser: (_parent, { input }, { services }) => services.users.create(input),
} satisfies Pick<MutationResolvers, 'createUser'>;

export const userFields = {
  displayName: (user) => user.display_name,
  avatarUrl: (user) => user.avatar_url,
  createdAt: (user) => user.created_at,
} satisfies UserResolvers;
