/**
 * Who is calling. `username` is the user id used for every ownership decision (the interface
 * document's "principal's username"): a JWT's `sub`, or a session's user.
 */
export interface Principal {
  username: string;
  roles: string[];
  /** The stored user the credential names; null for a JWT whose `sub` is no stored user (operator and test tokens). */
  userId: string | null;
  /** That user's tenant; null when the credential names no stored user. */
  tenantId: string | null;
  /** The server-side session the request came with; null for a JWT. */
  sessionId: string | null;
}

export const ADMIN = 'ADMIN';

export function hasRole(principal: Principal | null | undefined, role: string): boolean {
  return !!principal && principal.roles.includes(role);
}
