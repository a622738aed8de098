import type { Principal } from '../auth/principal.ts';
import type { ErrorRenderer, RawErrorRenderer } from './http-server.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated caller, or null: set by the authentication hook of the route's scope. */
    principal: Principal | null;
  }
  interface FastifyInstance {
    /** Areas' own renderers of errors raised before routing, by path prefix (renderFrameworkErrorsUnder). */
    /** From now on, refuse new requests with 503 and close every connection after its answer (shutdown). */
    beginDraining(): void;
    frameworkErrorRenderers: { prefix: string; render: ErrorRenderer; raw: RawErrorRenderer }[];
  }
  interface FastifyContextConfig {
    /** The OpenAPI operation the route serves (set by registerOperations). */
    operationId?: string;
    /** The name of the OpenAPI document (`generated/openapi/<name>.json`) the operation belongs to. */
    openApiDocument?: string;
  }
}
