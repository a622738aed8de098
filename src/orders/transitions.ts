/**
 * The order state machine and who may drive it. One rule decides both what an order's `_links`
 * offer and what a transition request may do, so a link is offered exactly when following it can
 * succeed (for the caller, at the order's current status and version).
 */
import { ADMIN, hasRole, type Principal } from '../auth/principal.ts';
import type { OrderStatus } from './orders.repository.ts';
import { canAccessCustomer } from './access.ts';

export type OrderAction = 'confirm' | 'cancel' | 'ship' | 'deliver';

const ORDER_ACTIONS: readonly OrderAction[] = ['confirm', 'cancel', 'ship', 'deliver'];

/** Where each action may start from, where it leads, and the role it needs beyond access. */
export const TRANSITIONS: Record<OrderAction, { from: OrderStatus[]; to: OrderStatus; role?: string }> = {
  confirm: { from: ['PENDING'], to: 'CONFIRMED' },
  cancel: { from: ['PENDING', 'CONFIRMED'], to: 'CANCELLED' },
  ship: { from: ['CONFIRMED'], to: 'SHIPPED', role: ADMIN },
  deliver: { from: ['SHIPPED'], to: 'DELIVERED', role: ADMIN },
};

/** What an order needs for the rule: its status and the username owning its customer. */
interface OrderState {
  status: OrderStatus;
  owner_id: string | null;
}

/**
 * Why `actor` may not take `action` on `order` now: `forbidden` (not the owner nor ADMIN, or lacking
 * the action's role), `illegal` (the status does not allow it), or null when it is allowed.
 */
export function transitionRefusal(order: OrderState, actor: Principal, action: OrderAction): 'forbidden' | 'illegal' | null {
  const rule = TRANSITIONS[action];
  if (!canAccessCustomer(actor, order.owner_id) || (rule.role && !hasRole(actor, rule.role))) return 'forbidden';
  return rule.from.includes(order.status) ? null : 'illegal';
}

export function allowedTransitions(order: OrderState, actor: Principal): OrderAction[] {
  return ORDER_ACTIONS.filter((action) => transitionRefusal(order, actor, action) === null);
}

/**
 * The actions the order's owner, holding no role, may take now: the `_links` of the order in its
 * webhook events (a receiver acts as the owner would). An order no one owns offers none.
 */
export function ownerTransitions(order: OrderState): OrderAction[] {
  if (order.owner_id === null) return [];
  return ORDER_ACTIONS.filter((action) => !TRANSITIONS[action].role && TRANSITIONS[action].from.includes(order.status));
}
