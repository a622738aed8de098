import type { Principal } from '../auth/principal.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated caller, or null for anonymous requests (set by the auth hook in app.ts). */
    principal: Principal | null;
  }
  interface FastifyContextConfig {
    operationId?: string;
    /** Operational routes (health, published docs) never authenticate: a stale token must not fail them. */
    skipAuth?: boolean;
  }
}
