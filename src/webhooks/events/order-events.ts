/**
 * The order events (decision 76), recorded in the transaction of the change:
 * - creation: `order.created` (sequence 1);
 * - every later change: `order.updated` (sequence = the new version, previous_attributes = the
 *   changed fields), and with it, same sequence, `order.shipped`, `order.delivered` or
 *   `order.cancelled` when the status became SHIPPED, DELIVERED or CANCELLED.
 * The object is the REST v1 Order plus its shipment fields (carrier, trackingNumber, shippedAt,
 * deliveredAt; null until shipped), with the `_links` the order's owner would see.
 */
import type { OrderRecord } from '../../orders/orders.repository.ts';
import { toOrderResponse } from '../../orders/orders.representation.ts';
import type { Executor } from '../../db/transaction.ts';
import type { EventType } from '../event-types.ts';
import { recordEvent } from '../outbox.repository.ts';
import { previousAttributes } from './changes.ts';

export function orderObject(order: OrderRecord): Record<string, unknown> {
  const owner = { username: order.owner_id ?? '', roles: [], tenantRoles: [], userId: null, tenantId: null, sessionId: null };
  return {
    ...toOrderResponse(order, owner),
    carrier: order.carrier ?? null,
    trackingNumber: order.tracking_number ?? null,
    shippedAt: order.shipped_at ? order.shipped_at.toISOString() : null,
    deliveredAt: order.delivered_at ? order.delivered_at.toISOString() : null,
  };
}

const STATUS_EVENTS: Partial<Record<OrderRecord['status'], EventType>> = {
  SHIPPED: 'order.shipped',
  DELIVERED: 'order.delivered',
  CANCELLED: 'order.cancelled',
};

export async function recordOrderCreated(db: Executor, order: OrderRecord): Promise<void> {
  await recordEvent(db, {
    type: 'order.created',
    resourceType: 'order',
    resourceId: order.id,
    sequence: order.version,
    object: orderObject(order),
  });
}

export async function recordOrderChanged(db: Executor, before: OrderRecord, after: OrderRecord): Promise<void> {
  const previous = orderObject(before);
  const object = orderObject(after);
  const base = { resourceType: 'order', resourceId: after.id, sequence: after.version, object };
  await recordEvent(db, { ...base, type: 'order.updated', previousAttributes: previousAttributes(previous, object) });
  const statusEvent = before.status !== after.status ? STATUS_EVENTS[after.status] : undefined;
  if (!statusEvent) return;
  const shippedPrevious =
    statusEvent === 'order.shipped' ? { status: previous.status, trackingNumber: previous.trackingNumber } : { status: previous.status };
  await recordEvent(db, { ...base, type: statusEvent, previousAttributes: shippedPrevious });
}
