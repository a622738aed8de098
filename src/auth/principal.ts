/** Who is calling. `username` is the user id used for every ownership decision. */
export interface Principal {
  username: string;
  roles: string[];
}

export const ADMIN = 'ADMIN';

export function hasRole(principal: Principal | null | undefined, role: string): boolean {
  return !!principal && principal.roles.includes(role);
}
