/** REST v2 product handlers: the v1 services behind the v2 shapes. v2 is JSON only. */
import type { operations } from '../../generated/openapi/rest-v2.ts';
import { ifMatchVersions, strongTag, withCurrentTag } from '../http/etag.ts';
import { negotiate } from '../http/negotiation.ts';
import type { OperationHandlers } from '../http/openapi-routes.ts';
import { parseSort, type SortOrder } from '../http/sort-params.ts';
import type { Services } from '../services.ts';
import type { ProductSortField } from './products.service.ts';
import { attributesFromMap, toPagedProductV2, toProductV2 } from './products.v2.representation.ts';

const JSON_ONLY = ['application/json'] as const;

export const V2_SORT_FIELDS = ['name', 'price', 'sku', 'category', 'quantity', 'createdAt', 'updatedAt'] as const;
export const V2_SEARCH_SORT_FIELDS = ['relevance', ...V2_SORT_FIELDS] as const;

/** v2 calls the stock quantity `quantity`; the service sorts by its own field names. */
function toServiceOrders(orders: SortOrder<(typeof V2_SEARCH_SORT_FIELDS)[number]>[]): SortOrder<ProductSortField>[] {
  return orders.map((o) => ({ field: o.field === 'quantity' ? 'stockQuantity' : o.field, direction: o.direction }));
}

export function productV2Handlers(services: Pick<Services, 'products'>): OperationHandlers<operations> {
  const products = services.products;
  return {
    listProductsV2: async (request) => {
      negotiate(request, JSON_ONLY);
      const { page = 0, size = 20, sort } = request.query;
      const orders = toServiceOrders(parseSort(sort, V2_SORT_FIELDS, [{ field: 'createdAt', direction: 'desc' }]));
      return toPagedProductV2(await products.list({ orders, page, size }), page, size);
    },

    searchProductsV2: async (request) => {
      negotiate(request, JSON_ONLY);
      const { q, minPrice, maxPrice, category, page = 0, size = 20, sort } = request.query;
      const orders = toServiceOrders(parseSort(sort, V2_SEARCH_SORT_FIELDS, [{ field: 'relevance', direction: 'desc' }]));
      return toPagedProductV2(await products.search({ q, minPrice, maxPrice, category, orders, page, size }), page, size);
    },

    getProductV2: async (request, reply) => {
      negotiate(request, JSON_ONLY);
      const product = await products.get(request.params.id);
      reply.header('ETag', strongTag(product.version));
      return toProductV2(product);
    },

    createProductV2: async (request, reply) => {
      const { name, description, price, sku, category, quantity, attributes } = request.body;
      const product = await products.create({
        name,
        description,
        price: price.amount,
        sku,
        category,
        stockQuantity: quantity,
        attributes: attributesFromMap(attributes),
      });
      reply.code(201).header('Location', `/api/v2/products/${product.id}`).header('ETag', strongTag(product.version));
      return toProductV2(product);
    },

    patchProductV2: async (request, reply) => {
      const { name, description, price, quantity } = request.body;
      const expected = ifMatchVersions(request.headers['if-match']);
      const command = { name, description, price: price?.amount ?? null, stockQuantity: quantity };
      const product = await withCurrentTag(reply, products.patch(request.params.id, command, expected));
      reply.header('ETag', strongTag(product.version));
      return toProductV2(product);
    },

    deleteProductV2: async (request, reply) => {
      await products.delete(request.params.id);
      return reply.code(204).send();
    },
  };
}
