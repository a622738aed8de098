/**
 * Whose users a caller may list (`users`, `searchUsers`, `allUsers`): the platform's administrators
 * see every tenant's; everybody else, tenant administrators included, sees the users of their own
 * tenant, and an anonymous caller (or an operator token naming no stored user) those of the
 * platform's own tenant. A user reached by id or through content (`user(id)`, a post's author) is
 * not a listing and resolves whatever its tenant, so published content keeps its author.
 */
import { ADMIN, hasRole, PLATFORM_TENANT, type Principal } from '../auth/principal.ts';

/** The tenant whose users the caller may list; null: every tenant's. */
export function directoryTenant(viewer: Principal | null): string | null {
  if (hasRole(viewer, ADMIN)) return null;
  return viewer?.tenantId ?? PLATFORM_TENANT;
}
