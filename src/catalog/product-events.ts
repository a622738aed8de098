/**
 * The catalog's webhook events (decision 76), recorded through the webhooks area's outbox in the
 * transaction of the change: `product.created`,
 * `product.updated` (a replacement or a patch that changed something; previous_attributes = the
 * changed fields) and `product.deleted` (the last representation; sequence one past the last
 * version, so it is greater than every earlier event of the product). The object is the REST v1
 * ProductResponse.
 */
import type { Executor } from '../db/transaction.ts';
import type { EventType } from '../webhooks/event-types.ts';
import { previousAttributes } from '../webhooks/events/changes.ts';
import { recordEvent, type NewEvent } from '../webhooks/outbox.repository.ts';
import type { ProductRecord } from './products.repository.ts';
import { productPath, toProductResponse } from './products.v1.representation.ts';

const objectOf = (product: ProductRecord) => toProductResponse(product) as unknown as Record<string, unknown>;

export async function recordProductCreated(db: Executor, product: ProductRecord): Promise<void> {
  await recordEvent(db, {
    type: 'product.created',
    resourceType: 'product',
    resourceId: product.id,
    sequence: product.version,
    object: objectOf(product),
    resourcePath: productPath(product.id),
  });
}

export async function recordProductUpdated(db: Executor, before: ProductRecord, after: ProductRecord): Promise<void> {
  const object = objectOf(after);
  await recordEvent(db, {
    type: 'product.updated',
    resourceType: 'product',
    resourceId: after.id,
    sequence: after.version,
    object,
    resourcePath: productPath(after.id),
    previousAttributes: previousAttributes(objectOf(before), object),
  });
}

export async function recordProductDeleted(db: Executor, product: ProductRecord): Promise<void> {
  await recordEvent(db, {
    type: 'product.deleted',
    resourceType: 'product',
    resourceId: product.id,
    sequence: product.version + 1,
    object: objectOf(product),
    resourcePath: null,
  });
}

const SAMPLE_PRODUCT_ID = '00000000-0000-4000-8000-000000000003';

/** The product a test event is about (decision 77): it does not exist, and its id says so. */
const sampleProduct: ProductRecord = {
  id: SAMPLE_PRODUCT_ID,
  name: 'Sample product',
  description: 'A product that exists only in test events',
  price: '19.99',
  sku: 'SAMPLE-1',
  category: 'ELECTRONICS',
  stock_quantity: 10,
  version: 1,
  created_at: new Date('2026-01-01T12:00:00.000Z'),
  updated_at: new Date('2026-01-01T12:00:00.000Z'),
  attributes: [],
  images: [],
};

/** Test events of the catalog's types, built as the real ones are (POST /api/webhooks/{id}/test). */
export const productEventSamples: Record<Extract<EventType, `product.${string}`>, () => NewEvent> = {
  'product.created': () => productSample('product.created', null),
  'product.updated': () => productSample('product.updated', { price: 24.99 }),
  'product.deleted': () => productSample('product.deleted', null),
};

function productSample(type: EventType, previous: Record<string, unknown> | null): NewEvent {
  return {
    type,
    resourceType: 'product',
    resourceId: SAMPLE_PRODUCT_ID,
    sequence: null,
    object: objectOf(sampleProduct),
    resourcePath: type === 'product.deleted' ? null : productPath(SAMPLE_PRODUCT_ID),
    previousAttributes: previous,
  };
}
