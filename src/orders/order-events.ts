/**
 * The orders' webhook events (decision 76), recorded through the webhooks area's outbox in the
 * transaction of the change:
 * - creation: `order.created` (sequence 1);
 * - every later change: `order.updated` (sequence = the new version, previous_attributes = the
 *   changed fields), and with it, same sequence, `order.shipped`, `order.delivered` or
 *   `order.cancelled` when the status became SHIPPED, DELIVERED or CANCELLED.
 * The object is the REST v1 Order plus its shipment fields (carrier, trackingNumber, shippedAt,
 * deliveredAt; null until shipped), with the `_links` the order's owner would see.
 */
import type { Executor } from '../db/transaction.ts';
import type { EventType } from '../webhooks/event-types.ts';
import { previousAttributes } from '../webhooks/events/changes.ts';
import { recordEvent, type NewEvent } from '../webhooks/outbox.repository.ts';
import type { OrderRecord } from './orders.repository.ts';
import { orderPath, orderRepresentation } from './orders.representation.ts';
import { ownerTransitions } from './transitions.ts';

function orderObject(order: OrderRecord): Record<string, unknown> {
  return {
    ...orderRepresentation(order, ownerTransitions(order)),
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
    resourcePath: orderPath(order.id),
  });
}

export async function recordOrderChanged(db: Executor, before: OrderRecord, after: OrderRecord): Promise<void> {
  const previous = orderObject(before);
  const object = orderObject(after);
  const base = { resourceType: 'order', resourceId: after.id, sequence: after.version, object, resourcePath: orderPath(after.id) };
  await recordEvent(db, { ...base, type: 'order.updated', previousAttributes: previousAttributes(previous, object) });
  const statusEvent = before.status !== after.status ? STATUS_EVENTS[after.status] : undefined;
  if (!statusEvent) return;
  const shippedPrevious =
    statusEvent === 'order.shipped' ? { status: previous.status, trackingNumber: previous.trackingNumber } : { status: previous.status };
  await recordEvent(db, { ...base, type: statusEvent, previousAttributes: shippedPrevious });
}

const SAMPLE_ORDER_ID = '00000000-0000-4000-8000-000000000001';
const SAMPLE_AT = new Date('2026-01-01T12:00:00.000Z');

/** The order a test event is about (decision 77): it does not exist, and its ids say so. */
function sampleOrder(status: OrderRecord['status']): OrderRecord {
  const shipped = status === 'SHIPPED' || status === 'DELIVERED';
  return {
    id: SAMPLE_ORDER_ID,
    customer_id: '00000000-0000-4000-8000-000000000002',
    owner_id: null,
    status,
    total: '39.98',
    currency: 'USD',
    version: status === 'PENDING' ? 1 : 3,
    created_at: SAMPLE_AT,
    updated_at: SAMPLE_AT,
    carrier: shipped ? 'UPS' : null,
    tracking_number: shipped ? '1Z999AA10123456784' : null,
    shipped_at: shipped ? SAMPLE_AT : null,
    delivered_at: status === 'DELIVERED' ? SAMPLE_AT : null,
    items: [
      { product_id: '00000000-0000-4000-8000-000000000003', name: 'Sample product', quantity: 2, unit_price: '19.99', line_total: '39.98' },
    ],
  };
}

function orderSample(type: EventType, status: OrderRecord['status'], previous: Record<string, unknown> | null): NewEvent {
  return {
    type,
    resourceType: 'order',
    resourceId: SAMPLE_ORDER_ID,
    sequence: null,
    object: orderObject(sampleOrder(status)),
    resourcePath: orderPath(SAMPLE_ORDER_ID),
    previousAttributes: previous,
  };
}

/** Test events of the orders' types, built as the real ones are (POST /api/webhooks/{id}/test). */
export const orderEventSamples: Record<Extract<EventType, `order.${string}`>, () => NewEvent> = {
  'order.created': () => orderSample('order.created', 'PENDING', null),
  'order.updated': () => orderSample('order.updated', 'PENDING', { status: 'PENDING' }),
  'order.shipped': () => orderSample('order.shipped', 'SHIPPED', { status: 'CONFIRMED', trackingNumber: null }),
  'order.delivered': () => orderSample('order.delivered', 'DELIVERED', { status: 'SHIPPED' }),
  'order.cancelled': () => orderSample('order.cancelled', 'CANCELLED', { status: 'PENDING' }),
};
