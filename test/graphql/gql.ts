/**
 * GraphQL test helpers: a POST /graphql call that returns status and body, and seed builders that
 * write through the services (fast, and independent of the API under test).
 */
import { print, type DocumentNode } from 'graphql';
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import type { Principal } from '../../src/auth/principal.ts';
import type { TestServer } from '../helpers/server.ts';

export interface GqlResponse<T = any> {
  status: number;
  body: { data?: T; errors?: any[] };
}

export async function gql<T = any>(
  server: Pick<TestServer, 'baseUrl'>,
  query: string | DocumentNode,
  variables?: Record<string, unknown>,
  token?: string,
): Promise<GqlResponse<T>> {
  const r = await fetch(`${server.baseUrl}/graphql`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/graphql-response+json',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify({ query: typeof query === 'string' ? query : print(query), variables }),
  });
  return { status: r.status, body: (await r.json()) as GqlResponse<T>['body'] };
}

/** Runs a typed document from generated/client: the result type follows the operation. */
export function typed<R, V extends Record<string, unknown>>(
  server: Pick<TestServer, 'baseUrl'>,
  document: TypedDocumentNode<R, V>,
  variables: V,
  token?: string,
): Promise<GqlResponse<R>> {
  return gql<R>(server, document, variables, token);
}

export const as = (userId: string, roles: string[] = []): Principal => ({
  userId,
  roles,
  tenantRoles: [],
  storedUserId: null,
  tenantId: null,
  sessionId: null,
});

export function seed(server: TestServer) {
  const { services } = server.app;
  return {
    // Users get generated ids; a principal (token subject) is a user id, so tests pass `row.id` around.
    user: (username: string, displayName = username) =>
      services.users.create({ username, email: `${username.toLowerCase()}@example.com`, displayName }),
    post: (author: string, title: string, options: { status?: 'DRAFT' | 'PUBLISHED'; tags?: string[]; content?: string } = {}) =>
      services.posts.create(as(author), {
        title,
        content: options.content ?? `About ${title}`,
        status: options.status ?? 'PUBLISHED',
        tags: options.tags ?? [],
      }),
    comment: (author: string, postId: number, content = 'Nice') => services.comments.add(as(author), String(postId), content),
    reply: (author: string, commentId: number, content = 'Thanks') => services.comments.reply(as(author), String(commentId), content),
    like: (user: string, postId: number) => services.posts.like(as(user), String(postId)),
    follow: (follower: string, followee: string) => services.users.follow(as(follower), followee),
  };
}
