/**
 * HAL shapes of orders and customers. An order's `_links` depend on its status and on who asks: they
 * offer exactly the transitions `allowedTransitions` grants the caller.
 */
import type { components } from '../../generated/openapi/rest-v1.ts';
import type { Principal } from '../auth/principal.ts';
import { pageMetadata } from '../paging.ts';
import type { CustomerRecord } from './customers.repository.ts';
import type { OrderRecord, Tracking } from './orders.repository.ts';
import { allowedTransitions, type OrderAction } from './transitions.ts';

export type OrderResponse = components['schemas']['Order'];
type OrderCollection = components['schemas']['OrderCollection'];
type CustomerResponse = components['schemas']['Customer'];
type OrderTracking = components['schemas']['OrderTracking'];
type Links = components['schemas']['OrderCollectionLinks'];

export const orderPath = (id: string) => `/api/v1/orders/${id}`;
export const customerPath = (id: string) => `/api/v1/customers/${id}`;

export function toCustomerResponse(c: CustomerRecord): CustomerResponse {
  return { id: c.id, name: c.name, email: c.email, userId: c.user_id, createdAt: c.created_at.toISOString() };
}

export function toOrderResponse(o: OrderRecord, viewer: Principal): OrderResponse {
  return orderRepresentation(o, allowedTransitions(o, viewer));
}

/** The order with `_links` offering `actions` (those someone may take now). */
export function orderRepresentation(o: OrderRecord, actions: readonly OrderAction[]): OrderResponse {
  const self = orderPath(o.id);
  const links: OrderResponse['_links'] = { self: { href: self }, customer: { href: customerPath(o.customer_id) } };
  for (const action of actions) links[action] = { href: `${self}/${action}` };
  if (o.status === 'SHIPPED') links.tracking = { href: `${self}/tracking` };
  return {
    id: o.id,
    status: o.status,
    // Decimal text from numeric columns; Number() only at the JSON edge, never for arithmetic.
    total: Number(o.total),
    currency: 'USD',
    customerId: o.customer_id,
    items: o.items.map((i) => ({
      productId: i.product_id,
      name: i.name,
      quantity: i.quantity,
      unitPrice: Number(i.unit_price),
      lineTotal: Number(i.line_total),
    })),
    version: o.version,
    createdAt: o.created_at.toISOString(),
    updatedAt: o.updated_at.toISOString(),
    _links: links,
  };
}

/** Collection links keep the caller's `size` and `sort` so following them pages the same list. */
export function toOrderCollection(
  result: { items: OrderRecord[]; totalElements: number },
  viewer: Principal,
  number: number,
  size: number,
  sort: readonly string[] | undefined,
): OrderCollection {
  const page = pageMetadata(number, size, result.totalElements);
  const href = (n: number) => {
    const params = new URLSearchParams({ page: String(n), size: String(size) });
    for (const s of sort ?? []) params.append('sort', s);
    return { href: `/api/v1/orders?${params.toString()}` };
  };
  const lastPage = Math.max(page.totalPages - 1, 0);
  const links: Links = { self: href(number), first: href(0), last: href(lastPage) };
  if (number < lastPage) links.next = href(number + 1);
  if (number > 0) links.prev = href(Math.min(number - 1, lastPage));
  return { _embedded: { orders: result.items.map((o) => toOrderResponse(o, viewer)) }, page, _links: links };
}

export function toOrderTracking(t: Tracking): OrderTracking {
  return {
    orderId: t.orderId,
    status: t.status,
    carrier: t.carrier,
    trackingNumber: t.trackingNumber,
    shippedAt: t.shippedAt.toISOString(),
    deliveredAt: t.deliveredAt ? t.deliveredAt.toISOString() : null,
  };
}
