/**
 * Ownership rule of customers and their orders: the user owning the customer (`customers.user_id`
 * is the principal's username) and ADMIN may see and act on them; any other principal may not.
 */
import { ADMIN, hasRole, type Principal } from '../auth/principal.ts';
import { forbidden } from '../errors.ts';

export function canAccessCustomer(actor: Principal, ownerId: string | null): boolean {
  return hasRole(actor, ADMIN) || (ownerId !== null && ownerId === actor.userId);
}

export function assertCustomerAccess(actor: Principal, ownerId: string | null): void {
  if (!canAccessCustomer(actor, ownerId)) throw forbidden('This customer belongs to another user');
}
