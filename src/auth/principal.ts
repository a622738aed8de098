/**
 * Who is calling. `userId` is the user id used for every ownership decision (what the interface
 * document calls the "principal's username"): a JWT's `sub`, or a session's user. `storedUserId` is
 * the stored user the credential names, which a JWT's `sub` need not be.
 *
 * Roles have a scope (docs/security.md). `roles` hold on the whole platform: the roles of an operator's
 * JWT (`npm run token`), and those of users of the platform's own tenant (`default`). `tenantRoles`
 * hold only inside `tenantId`: what a tenant's group-to-role mapping grants its users, so an ADMIN
 * that tenant acme maps is acme's administrator and nobody else's.
 */
export interface Principal {
  /** The id every ownership decision compares (`author_id`, `uploaded_by`, …). */
  userId: string;
  /** Roles that hold platform-wide. */
  roles: string[];
  /** Roles that hold inside `tenantId` only (for a user of the platform's tenant, the same as `roles`). */
  tenantRoles: string[];
  /** The stored user the credential names; null for a JWT whose `sub` is no stored user (operator and test tokens). */
  storedUserId: string | null;
  /** That user's tenant; null when the credential names no stored user. */
  tenantId: string | null;
  /** The server-side session the request came with; null for a JWT. */
  sessionId: string | null;
  /**
   * Set only for a portal session (src/portal/): the operations of these intents accept it, for
   * `tenantId`, and only those (src/http/openapi-routes.ts); absent for every other credential.
   */
  portal?: { sessionId: string; intents: readonly string[] };
}

export const ADMIN = 'ADMIN';

/** The platform's own tenant: the roles of its users hold platform-wide. */
export const PLATFORM_TENANT = 'default';

/** Whether the principal holds `role` platform-wide. */
export function hasRole(principal: Principal | null | undefined, role: string): boolean {
  return !!principal && principal.roles.includes(role);
}

/** Whether the principal holds `role` in some tenant (its own) without holding it platform-wide. */
export function hasRoleInOwnTenant(principal: Principal | null | undefined, role: string): principal is Principal & { tenantId: string } {
  return !!principal && principal.tenantId !== null && principal.tenantRoles.includes(role);
}

/**
 * The principal of a stored user in `tenantId` holding `tenantGranted` (its sessions' and groups'
 * roles) and `platformGranted` (an operator's JWT roles).
 */
export function scopedRoles(tenantId: string | null, tenantGranted: readonly string[], platformGranted: readonly string[] = []) {
  const tenantRoles = [...new Set(tenantGranted)].sort();
  const roles = [...new Set([...platformGranted, ...(tenantId === PLATFORM_TENANT ? tenantRoles : [])])].sort();
  return { roles, tenantRoles: tenantId === null ? [] : tenantRoles };
}
