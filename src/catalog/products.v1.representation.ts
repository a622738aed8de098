import type { components } from '../../generated/openapi/rest-v1.ts';
import { decimalToPrice } from './money.ts';
import type { ProductRecord } from './products.service.ts';

export type ProductResponse = components['schemas']['ProductResponse'];

export function toProductResponse(p: ProductRecord): ProductResponse {
  return {
    id: p.id,
    name: p.name,
    description: p.description,
    price: decimalToPrice(p.price),
    sku: p.sku,
    category: p.category as ProductResponse['category'],
    stockQuantity: p.stock_quantity,
    inStock: p.stock_quantity > 0,
    attributes: p.attributes,
    images: [],
    createdAt: p.created_at.toISOString(),
    updatedAt: p.updated_at.toISOString(),
  };
}
