/**
 * Orders: placing one reserves stock for every line atomically, and each status change is one
 * conditional UPDATE that bumps `version` (and compares it, for a conditional request), so
 * concurrent requests can neither oversell nor apply two transitions from the same state.
 */
import { ADMIN, hasRole, type Principal } from '../auth/principal.ts';
import type { Database } from '../db/database.ts';
import { inTransaction, type Executor } from '../db/transaction.ts';
import { acceptsVersion, type ExpectedVersions } from '../db/versioning.ts';
import { conflict, forbidden, notFound, validationFailed, VersionMismatch, type Violation } from '../errors.ts';
import { productNotFound } from '../catalog/products.service.ts';
import { releaseStock, stockOf, takeStock } from '../catalog/stock.repository.ts';
import { assertCustomerAccess } from './access.ts';
import { findCustomer } from './customers.repository.ts';
import { customerNotFound } from './customers.service.ts';
import * as repo from './orders.repository.ts';
import { recordOrderChanged, recordOrderCreated } from './order-events.ts';
import { TRANSITIONS, transitionRefusal, type OrderAction } from './transitions.ts';

export type { OrderRecord } from './orders.repository.ts';

interface CreateOrderCommand {
  customerId: string;
  items: { productId: string; quantity: number }[];
}

interface OrderListQuery {
  orders: repo.OrderPageQuery['orders'];
  page: number;
  size: number;
}

export const ORDER_SORT_FIELDS = ['createdAt', 'updatedAt', 'total', 'status'] as const;

const orderNotFound = (id: string) => notFound(`Order not found: ${id}`, 'ORDER_NOT_FOUND');

function illegalTransition(order: repo.OrderRecord, action: OrderAction): Error {
  const allowed = TRANSITIONS[action].from.join(' or ');
  return conflict(`Order ${order.id} is ${order.status}; ${action} is only possible from ${allowed}`, 'ILLEGAL_TRANSITION');
}

export class OrdersService {
  constructor(private readonly db: Database) {}

  async create(actor: Principal, command: CreateOrderCommand): Promise<repo.OrderRecord> {
    const violations: Violation[] = [];
    const seen = new Set<string>();
    command.items.forEach((item, i) => {
      if (seen.has(item.productId))
        violations.push({ field: ['items', i, 'productId'], message: 'product already ordered in an earlier line' });
      seen.add(item.productId);
    });
    if (violations.length) throw validationFailed(violations);

    return inTransaction(this.db, async (trx) => {
      const customer = await findCustomer(trx, command.customerId);
      if (!customer) throw customerNotFound(command.customerId);
      assertCustomerAccess(actor, customer.user_id);
      // Rows are taken in product-id order so two orders over the same products cannot deadlock.
      const byProduct = [...command.items].sort((a, b) => (a.productId < b.productId ? -1 : 1));
      const snapshots = new Map<string, { name: string; price: string }>();
      for (const item of byProduct) {
        const taken = await takeStock(trx, item.productId, item.quantity);
        if (!taken) {
          const available = await stockOf(trx, item.productId);
          if (available === undefined) throw productNotFound(item.productId);
          throw conflict(
            `Insufficient stock for product ${item.productId}: ${available} available, ${item.quantity} requested`,
            'INSUFFICIENT_STOCK',
          );
        }
        snapshots.set(item.productId, { name: taken.name, price: taken.price });
      }
      const lines = command.items.map((item) => {
        const snapshot = snapshots.get(item.productId)!;
        return { product_id: item.productId, name: snapshot.name, unit_price: snapshot.price, quantity: item.quantity };
      });
      const id = await repo.insertOrder(trx, customer.id, lines);
      const order = (await repo.findOrder(trx, id))!;
      await recordOrderCreated(trx, order);
      return order;
    });
  }

  async get(actor: Principal, id: string): Promise<repo.OrderRecord> {
    const order = await repo.findOrder(this.db, id);
    if (!order) throw orderNotFound(id);
    assertCustomerAccess(actor, order.owner_id);
    return order;
  }

  async list(actor: Principal, query: OrderListQuery): Promise<{ items: repo.OrderRecord[]; totalElements: number }> {
    const ownerId = hasRole(actor, ADMIN) ? null : actor.userId;
    const { rows, total } = await repo.pageOrders(this.db, { ...query, ownerId });
    return { items: rows, totalElements: total };
  }

  /** `expected` on every transition: the versions the caller's copy may have (If-Match). */
  confirm(actor: Principal, id: string, expected?: ExpectedVersions): Promise<repo.OrderRecord> {
    return this.apply(actor, id, 'confirm', expected);
  }

  /** Cancelling returns the reserved stock in the same transaction as the status change. */
  cancel(actor: Principal, id: string, expected?: ExpectedVersions): Promise<repo.OrderRecord> {
    return this.apply(actor, id, 'cancel', expected, {}, (trx) => releaseStock(trx, id));
  }

  ship(
    actor: Principal,
    id: string,
    shipment: { carrier: string; trackingNumber: string },
    expected?: ExpectedVersions,
  ): Promise<repo.OrderRecord> {
    return this.apply(actor, id, 'ship', expected, {
      carrier: shipment.carrier,
      tracking_number: shipment.trackingNumber,
      shipped_at: new Date(),
    });
  }

  deliver(actor: Principal, id: string, expected?: ExpectedVersions): Promise<repo.OrderRecord> {
    return this.apply(actor, id, 'deliver', expected, { delivered_at: new Date() });
  }

  async tracking(actor: Principal, id: string): Promise<repo.Tracking> {
    const order = await this.get(actor, id);
    if ((order.status !== 'SHIPPED' && order.status !== 'DELIVERED') || !order.carrier || !order.tracking_number || !order.shipped_at) {
      throw conflict(`Order ${id} is ${order.status}; tracking exists once it is SHIPPED`, 'NOT_SHIPPED');
    }
    return {
      orderId: order.id,
      status: order.status,
      carrier: order.carrier,
      trackingNumber: order.tracking_number,
      shippedAt: order.shipped_at,
      deliveredAt: order.delivered_at,
    };
  }

  /**
   * Refusals in RFC 9110 order: 404, then 403 (access, the action's role), then 412 (the caller's copy
   * is stale: preconditions come before the state conflict), then 409 (the status does not allow it).
   */
  private async apply(
    actor: Principal,
    id: string,
    action: OrderAction,
    expected: ExpectedVersions,
    changes: repo.TransitionChanges = {},
    after?: (trx: Executor) => Promise<void>,
  ): Promise<repo.OrderRecord> {
    return inTransaction(this.db, async (trx) => {
      const order = await repo.findOrder(trx, id);
      if (!order) throw orderNotFound(id);
      assertCustomerAccess(actor, order.owner_id);
      const refusal = transitionRefusal(order, actor, action);
      if (refusal === 'forbidden') throw forbidden(`This operation requires the ${TRANSITIONS[action].role} role`);
      const refuse = (current: repo.OrderRecord) =>
        acceptsVersion(expected, current.version)
          ? illegalTransition(current, action)
          : new VersionMismatch(current.version, `Order ${id}`);
      if (refusal === 'illegal' || !acceptsVersion(expected, order.version)) throw refuse(order);
      const { from, to } = TRANSITIONS[action];
      if (!(await repo.transition(trx, id, from, to, changes, expected))) {
        // Lost a race: report the order as it is now.
        throw refuse((await repo.findOrder(trx, id))!);
      }
      await after?.(trx);
      const changed = (await repo.findOrder(trx, id))!;
      await recordOrderChanged(trx, order, changed);
      return changed;
    });
  }
}
