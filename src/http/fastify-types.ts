import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Principal } from '../auth/principal.ts';

/** How an area with an error format of its own (SCIM) answers errors raised before routing. */
export type ErrorRenderer = (error: unknown, request: FastifyRequest, reply: FastifyReply) => FastifyReply;

/**
 * The same area's body for an error node's parser raises on the raw socket (431, 400, 408), where
 * there is neither a request nor a reply: a media type and the serialized body.
 */
export type RawErrorRenderer = (status: number, detail: string) => { type: string; body: string };

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated caller, or null: set by the authentication hook of the route's scope. */
    principal: Principal | null;
  }
  interface FastifyInstance {
    /** From now on, refuse new requests with 503 and close every connection after its answer (shutdown). */
    beginDraining(): void;
    /** Areas' own renderers of errors raised before routing, by path prefix (renderFrameworkErrorsUnder). */
    frameworkErrorRenderers: { prefix: string; render: ErrorRenderer; raw: RawErrorRenderer }[];
  }
  interface FastifyContextConfig {
    /** The OpenAPI operation the route serves (set by registerOperations). */
    operationId?: string;
    /** The name of the OpenAPI document (`generated/openapi/<name>.json`) the operation belongs to. */
    openApiDocument?: string;
  }
}
