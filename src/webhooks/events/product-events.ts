/**
 * The product events (decision 76), recorded in the transaction of the change: `product.created`,
 * `product.updated` (a replacement or a patch that changed something; previous_attributes = the
 * changed fields) and `product.deleted` (the last representation; sequence one past the last
 * version, so it is greater than every earlier event of the product). The object is the REST v1
 * ProductResponse.
 */
import type { ProductRecord } from '../../catalog/products.repository.ts';
import { toProductResponse } from '../../catalog/products.v1.representation.ts';
import type { Executor } from '../../db/transaction.ts';
import { recordEvent } from '../outbox.repository.ts';
import { previousAttributes } from './changes.ts';

const objectOf = (product: ProductRecord) => toProductResponse(product) as unknown as Record<string, unknown>;

export async function recordProductCreated(db: Executor, product: ProductRecord): Promise<void> {
  await recordEvent(db, {
    type: 'product.created',
    resourceType: 'product',
    resourceId: product.id,
    sequence: product.version,
    object: objectOf(product),
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
  });
}
