/**
 * Sample events for POST /api/webhooks/{id}/test: a realistic payload per event type, built with the
 * same functions as real events (so the shape is the real one), about resources that do not exist:
 * every id is the nil-like `00000000-0000-4000-8000-…` form, which lets a receiver recognise test
 * data (decision 77). A test event has no sequence (it belongs to no resource's history).
 */
import type { OrderRecord } from '../../orders/orders.repository.ts';
import type { ProductRecord } from '../../catalog/products.repository.ts';
import type { EventType } from '../event-types.ts';
import type { NewEvent } from '../outbox.repository.ts';
import { orderObject } from './order-events.ts';
import { toProductResponse } from '../../catalog/products.v1.representation.ts';

const SAMPLE_ORDER_ID = '00000000-0000-4000-8000-000000000001';
const SAMPLE_CUSTOMER_ID = '00000000-0000-4000-8000-000000000002';
const SAMPLE_PRODUCT_ID = '00000000-0000-4000-8000-000000000003';
const AT = new Date('2026-01-01T12:00:00.000Z');

function sampleOrder(status: OrderRecord['status']): OrderRecord {
  const shipped = status === 'SHIPPED' || status === 'DELIVERED';
  return {
    id: SAMPLE_ORDER_ID,
    customer_id: SAMPLE_CUSTOMER_ID,
    owner_id: null,
    status,
    total: '39.98',
    currency: 'USD',
    version: status === 'PENDING' ? 1 : 3,
    created_at: AT,
    updated_at: AT,
    carrier: shipped ? 'UPS' : null,
    tracking_number: shipped ? '1Z999AA10123456784' : null,
    shipped_at: shipped ? AT : null,
    delivered_at: status === 'DELIVERED' ? AT : null,
    items: [{ product_id: SAMPLE_PRODUCT_ID, name: 'Sample product', quantity: 2, unit_price: '19.99', line_total: '39.98' }],
  };
}

function sampleProduct(): ProductRecord {
  return {
    id: SAMPLE_PRODUCT_ID,
    name: 'Sample product',
    description: 'A product that exists only in test events',
    price: '19.99',
    sku: 'SAMPLE-1',
    category: 'ELECTRONICS',
    stock_quantity: 10,
    version: 1,
    created_at: AT,
    updated_at: AT,
    attributes: [],
    images: [],
  };
}

export function sampleEvent(type: EventType): NewEvent {
  if (type.startsWith('product.')) {
    const object = toProductResponse(sampleProduct()) as unknown as Record<string, unknown>;
    const previousAttributes = type === 'product.updated' ? { price: 24.99 } : null;
    return { type, resourceType: 'product', resourceId: SAMPLE_PRODUCT_ID, sequence: null, object, previousAttributes };
  }
  const STATUSES: Partial<Record<EventType, OrderRecord['status']>> = {
    'order.shipped': 'SHIPPED',
    'order.delivered': 'DELIVERED',
    'order.cancelled': 'CANCELLED',
  };
  const PREVIOUS: Partial<Record<EventType, Record<string, unknown>>> = {
    'order.updated': { status: 'PENDING' },
    'order.shipped': { status: 'CONFIRMED', trackingNumber: null },
    'order.delivered': { status: 'SHIPPED' },
    'order.cancelled': { status: 'PENDING' },
  };
  const object = orderObject(sampleOrder(STATUSES[type] ?? 'PENDING'));
  const previousAttributes = PREVIOUS[type] ?? null;
  return { type, resourceType: 'order', resourceId: SAMPLE_ORDER_ID, sequence: null, object, previousAttributes };
}
