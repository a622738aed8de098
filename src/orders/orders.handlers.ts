/** REST v1 customer and order handlers (HAL). */
import type { FastifyRequest } from 'fastify';
import type { CustomersOperations, OrdersOperations } from '../../generated/openapi/rest-v1.ts';
import type { Principal } from '../auth/principal.ts';
import { ifMatchVersions, strongTag, withCurrentTag } from '../http/etag.ts';
import { principalOf } from '../http/principal-of.ts';
import { negotiate, type MediaType } from '../http/negotiation.ts';
import type { OperationHandlers, ReplyHeaders } from '../http/openapi-routes.ts';
import { parseSort } from '../http/sort-params.ts';
import type { Services } from '../services.ts';
import { ORDER_SORT_FIELDS, type OrderRecord } from './orders.service.ts';
import {
  orderPath,
  customerPath,
  toCustomerResponse,
  toOrderCollection,
  toOrderResponse,
  toOrderTracking,
  type OrderResponse,
} from './orders.representation.ts';

/** The customer and order operations of rest-v1: this area answers both tags. */
export type OrdersAreaOperations = CustomersOperations & OrdersOperations;

type OrderHandlers = OperationHandlers<OrdersAreaOperations>;

const JSON_ONLY = ['application/json'] as const;
/** Same body either way; plain JSON unless the client asks for HAL by name. */
const HAL = ['application/json', 'application/hal+json'] as const;

/**
 * An order as `actor` sees it, tagged with its version. A transition's response is negotiated like a
 * read (its 200 documents both JSON types).
 */
function sendOrder(
  request: FastifyRequest,
  reply: ReplyHeaders,
  actor: Principal,
  order: OrderRecord,
  type: MediaType = negotiateHal(request),
): OrderResponse {
  reply.type(`${type}; charset=utf-8`);
  reply.header('ETag', strongTag(order.version));
  return toOrderResponse(order, actor);
}

function negotiateHal(request: FastifyRequest): MediaType {
  // Transitions and creation document no 406: an unmatched Accept falls back to plain JSON.
  try {
    return negotiate(request, HAL);
  } catch {
    return 'application/json';
  }
}

export function orderHandlers(services: Pick<Services, 'customers' | 'orders'>): OrderHandlers {
  const { customers, orders } = services;
  return {
    createCustomer: async (request, reply) => {
      const customer = await customers.create(principalOf(request), request.body);
      reply.code(201).header('Location', customerPath(customer.id));
      return toCustomerResponse(customer);
    },

    getCustomer: async (request) => {
      const actor = principalOf(request);
      negotiate(request, JSON_ONLY);
      return toCustomerResponse(await customers.get(actor, request.params.id));
    },

    listOrders: async (request, reply) => {
      const actor = principalOf(request);
      const type = negotiate(request, HAL);
      const { page = 0, size = 20, sort } = request.query;
      const order = parseSort(sort, ORDER_SORT_FIELDS, [{ field: 'createdAt', direction: 'desc' }]);
      const result = await orders.list(actor, { orders: order, page, size });
      return reply.type(`${type}; charset=utf-8`).send(toOrderCollection(result, actor, page, size, sort));
    },

    createOrder: async (request, reply) => {
      const actor = principalOf(request);
      const order = await orders.create(actor, request.body);
      reply.code(201).header('Location', orderPath(order.id));
      return sendOrder(request, reply, actor, order);
    },

    getOrder: async (request, reply) => {
      const actor = principalOf(request);
      const type = negotiate(request, HAL);
      return sendOrder(request, reply, actor, await orders.get(actor, request.params.id), type);
    },

    // Ship and deliver are refused to non-ADMIN callers by their `x-required-role` before this runs;
    // who may take which transition of this order (owner, status) is the service's rule, the same one
    // that chooses the links, so the two cannot disagree.
    confirmOrder: async (request, reply) => {
      const actor = principalOf(request);
      const expected = ifMatchVersions(request.headers['if-match']);
      return sendOrder(request, reply, actor, await withCurrentTag(reply, orders.confirm(actor, request.params.id, expected)));
    },

    cancelOrder: async (request, reply) => {
      const actor = principalOf(request);
      const expected = ifMatchVersions(request.headers['if-match']);
      return sendOrder(request, reply, actor, await withCurrentTag(reply, orders.cancel(actor, request.params.id, expected)));
    },

    shipOrder: async (request, reply) => {
      const actor = principalOf(request);
      const expected = ifMatchVersions(request.headers['if-match']);
      return sendOrder(request, reply, actor, await withCurrentTag(reply, orders.ship(actor, request.params.id, request.body, expected)));
    },

    deliverOrder: async (request, reply) => {
      const actor = principalOf(request);
      const expected = ifMatchVersions(request.headers['if-match']);
      return sendOrder(request, reply, actor, await withCurrentTag(reply, orders.deliver(actor, request.params.id, expected)));
    },

    getOrderTracking: async (request) => {
      const actor = principalOf(request);
      negotiate(request, JSON_ONLY);
      return toOrderTracking(await orders.tracking(actor, request.params.id));
    },
  };
}
