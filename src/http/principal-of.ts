/**
 * Who may call a REST operation is its OpenAPI `security` and `x-required-role`, enforced by
 * registerOperations before the handler runs; the GraphQL equivalents are schema directives.
 */
import type { FastifyRequest } from 'fastify';
import type { Principal } from '../auth/principal.ts';

/**
 * The caller of an operation whose security requires one. Without a caller here, the handler needs a
 * principal its operation does not declare: a defect of the document or the handler, so a 500.
 */
export function principalOf(request: FastifyRequest): Principal {
  if (request.principal) return request.principal;
  throw new Error(`operation ${request.routeOptions.config.operationId ?? request.url} needs a caller its security does not require`);
}
