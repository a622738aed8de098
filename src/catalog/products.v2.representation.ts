/** REST v2 shapes over the same product records as v1: money and inventory objects, attributes as a map. */
import type { components } from '../../generated/openapi/rest-v2.ts';
import { pageMetadata } from '../paging.ts';
import type { ProductAttribute, ProductPage, ProductRecord } from './products.service.ts';
import { toImageResponse } from './products.v1.representation.ts';

type ProductV2 = components['schemas']['ProductV2'];
type PagedProductResponseV2 = components['schemas']['PagedProductResponseV2'];

export function toProductV2(p: ProductRecord): ProductV2 {
  return {
    id: p.id,
    name: p.name,
    description: p.description,
    sku: p.sku,
    category: p.category as ProductV2['category'],
    // The stored numeric(12,2) text is already the exact decimal string with 2 fraction digits.
    price: { amount: p.price, currency: 'USD' },
    inventory: { quantity: p.stock_quantity, inStock: p.stock_quantity > 0 },
    attributes: Object.fromEntries(p.attributes.map((a) => [a.key, a.value])),
    images: p.images.map(toImageResponse),
    createdAt: p.created_at.toISOString(),
    updatedAt: p.updated_at.toISOString(),
  };
}

export function toPagedProductV2(page: ProductPage, number: number, size: number): PagedProductResponseV2 {
  return { content: page.items.map(toProductV2), page: pageMetadata(number, size, page.totalElements) };
}

export function attributesFromMap(map: Record<string, string> | undefined): ProductAttribute[] {
  return Object.entries(map ?? {}).map(([key, value]) => ({ key, value }));
}
