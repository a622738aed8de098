/**
 * What every resolver of the content graph receives: the caller, the content services, per-operation
 * batching loaders, the event stream (subscriptions) and the client's address. Generated resolver
 * signatures (codegen.ts `contextType`) are typed against it.
 */
import type { Principal } from '../auth/principal.ts';
import type { CommentsService } from './comments.service.ts';
import type { ContentEventListener } from './content-events.listener.ts';
import type { ContentLoaderFactory, ContentLoaders } from './content.loaders.ts';
import type { ContentPlanner } from './planner/operation-plan.ts';
import type { PostsService } from './posts.service.ts';
import type { UsersService } from '../users/users.service.ts';

/** The services the content graph calls, and nothing else of the container. */
export interface ContentServices {
  users: UsersService;
  posts: PostsService;
  comments: CommentsService;
  contentLoaders: ContentLoaderFactory;
  /** The whole-operation planner (GRAPHQL_PLANNER, on by default); null: every operation through its resolvers. */
  planner: ContentPlanner | null;
}

export interface ContentContext {
  [key: string | symbol]: unknown;
  principal: Principal | null;
  services: ContentServices;
  /** Operation-scoped DataLoaders; a subscription replaces them for each event it delivers. */
  loaders: ContentLoaders;
  /** The event stream subscriptions read from; present on the WebSocket transport only. */
  events: ContentEventListener | null;
  /**
   * The client's address as TRUST_PROXY has it (budgets such as createUser's are kept per address);
   * null for a context no transport built (tests, the benchmark).
   */
  clientAddress: string | null;
}

export function createContentContext(
  principal: Principal | null,
  services: ContentServices,
  events: ContentEventListener | null = null,
  clientAddress: string | null = null,
): ContentContext {
  return { principal, services, loaders: services.contentLoaders.forRequest(principal), events, clientAddress };
}
