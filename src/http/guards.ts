/** Authorization checks for REST handlers; the GraphQL equivalents are schema directives. */
import type { FastifyRequest } from 'fastify';
import { hasRole, type Principal } from '../auth/principal.ts';
import { forbidden, unauthenticated } from '../errors.ts';

export function requirePrincipal(request: FastifyRequest): Principal {
  const principal = request.principal;
  if (!principal) throw unauthenticated('This operation requires a bearer token');
  return principal;
}

export function requireRole(request: FastifyRequest, role: string): Principal {
  const principal = requirePrincipal(request);
  if (!hasRole(principal, role)) throw forbidden(`This operation requires the ${role} role`);
  return principal;
}
