import type { Principal } from '../auth/principal.ts';
import type { ContentEventListener } from '../content/content-events.listener.ts';
import type { ContentLoaders } from '../content/content.loaders.ts';
import { unauthenticated } from '../errors.ts';
import type { Services } from '../services.ts';

/** What every resolver receives: the caller, the services, and per-operation batching loaders. */
export interface GraphQLContext {
  [key: string | symbol]: unknown;
  principal: Principal | null;
  services: Services;
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

export function createContext(
  principal: Principal | null,
  services: Services,
  events: ContentEventListener | null = null,
  clientAddress: string | null = null,
): GraphQLContext {
  return { principal, services, loaders: services.contentLoaders.forRequest(principal), events, clientAddress };
}

/**
 * The principal of a field guarded by @authenticated or @hasRole. The directive has already refused
 * anonymous callers; this narrows the type and keeps the field safe should the directive be removed.
 */
export function requirePrincipal(context: GraphQLContext): Principal {
  if (!context.principal) throw unauthenticated();
  return context.principal;
}
