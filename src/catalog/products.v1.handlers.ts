/** REST v1 product handlers: one thin hop from the validated request to the service. */
import type { operations } from '../../generated/openapi/rest-v1.ts';
import type { OperationHandlers } from '../http/openapi-routes.ts';
import { priceToDecimal } from './money.ts';
import { toProductResponse } from './products.v1.representation.ts';
import type { Services } from '../services.ts';
import { requirePrincipal } from '../http/guards.ts';

export function productV1Handlers(services: Services): Partial<OperationHandlers<operations>> {
  return {
    getProduct: async (request) => toProductResponse(await services.products.get(request.params.id)),

    createProduct: async (request, reply) => {
      requirePrincipal(request);
      const body = request.body;
      const product = await services.products.create({ ...body, price: priceToDecimal(body.price) });
      const url = new URL(request.url, 'http://placeholder');
      reply.code(201).header('Location', `${url.pathname.replace(/\/+$/, '')}/${product.id}`);
      return toProductResponse(product);
    },
  };
}
