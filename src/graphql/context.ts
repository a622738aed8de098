import type { Principal } from '../auth/principal.ts';
import type { Services } from '../services.ts';

/** What every resolver receives: the caller, the services, and per-operation batching loaders. */
export interface GraphQLContext {
  [key: string | symbol]: unknown;
  principal: Principal | null;
  services: Services;
  /** Operation-scoped DataLoaders, created lazily by each area (see src/content/loaders.ts). */
  loaders: Map<string, unknown>;
}

export function createContext(principal: Principal | null, services: Services): GraphQLContext {
  return { principal, services, loaders: new Map() };
}
