import { sql, type ExpressionBuilder } from 'kysely';
import { jsonArrayFrom } from 'kysely/helpers/postgres';
import type { DB, NewOrderItemsRow, OrdersRow, OrdersRowChanges } from '../../generated/db/types.ts';
import type { Executor } from '../db/transaction.ts';
import { versionCondition, type ExpectedVersions } from '../db/versioning.ts';

export type OrderStatus = 'PENDING' | 'CONFIRMED' | 'SHIPPED' | 'DELIVERED' | 'CANCELLED';

/** Decimals travel as text (numeric columns, `::text` inside JSON) so nothing parses them into floats. */
interface OrderItemRecord {
  product_id: string;
  name: string;
  quantity: number;
  unit_price: string;
  line_total: string;
}

/** A shipped order's tracking information (GET /orders/{id}/tracking). */
export interface Tracking {
  orderId: string;
  status: 'SHIPPED' | 'DELIVERED';
  carrier: string;
  trackingNumber: string;
  shippedAt: Date;
  deliveredAt: Date | null;
}

export type OrderRecord = Omit<OrdersRow, 'status'> & { status: OrderStatus; owner_id: string | null; items: OrderItemRecord[] };

type OrderSortField = 'createdAt' | 'updatedAt' | 'total' | 'status';

const COLUMNS: Record<OrderSortField, string> = {
  createdAt: 'orders.created_at',
  updatedAt: 'orders.updated_at',
  total: 'orders.total',
  status: 'orders.status',
};

function items(eb: ExpressionBuilder<DB, 'orders'>) {
  return jsonArrayFrom(
    eb
      .selectFrom('order_items')
      .select([
        'product_id',
        'name',
        'quantity',
        sql<string>`unit_price::text`.as('unit_price'),
        sql<string>`line_total::text`.as('line_total'),
      ])
      .whereRef('order_items.order_id', '=', 'orders.id')
      .orderBy('order_items.position'),
  ).as('items');
}

function orderQuery(db: Executor) {
  return db
    .selectFrom('orders')
    .innerJoin('customers', 'customers.id', 'orders.customer_id')
    .selectAll('orders')
    .select('customers.user_id as owner_id')
    .select(items);
}

export async function findOrder(db: Executor, id: string): Promise<OrderRecord | undefined> {
  return (await orderQuery(db).where('orders.id', '=', id).executeTakeFirst()) as OrderRecord | undefined;
}

/**
 * A line as the caller gives it (`unit_price`: the product's numeric price as text); insertOrder
 * sets the order, the position (the line's index) and `line_total` (computed in SQL numeric).
 */
type NewOrderLine = Omit<NewOrderItemsRow, 'order_id' | 'position' | 'line_total'>;

/** Inserts the order and its lines; line totals and the order total are computed in SQL numeric. */
export async function insertOrder(db: Executor, customerId: string, lines: NewOrderLine[]): Promise<string> {
  const { id } = await db.insertInto('orders').values({ customer_id: customerId, total: '0' }).returning('id').executeTakeFirstOrThrow();
  await db
    .insertInto('order_items')
    .values(
      lines.map((line, position) => ({
        ...line,
        order_id: id,
        position,
        line_total: sql<string>`${line.unit_price}::numeric * ${line.quantity}`,
      })),
    )
    .execute();
  await db
    .updateTable('orders')
    .set({ total: sql<string>`(select sum(line_total) from order_items where order_id = ${id})` })
    .where('id', '=', id)
    .execute();
  return id;
}

/**
 * What a transition records beside the status (tracking, shipped/delivered times): not the status,
 * `version` and `updated_at`, which transition sets itself; not what is fixed when the order is
 * placed (its id, customer, amounts and creation time).
 */
export type TransitionChanges = Omit<
  OrdersRowChanges,
  'status' | 'version' | 'updated_at' | 'id' | 'customer_id' | 'total' | 'currency' | 'created_at'
>;

/**
 * Moves the order to `to` only if its status is one of `from` (and its version one of `expected`,
 * when given), in one conditional UPDATE: of two concurrent transitions exactly one wins, the other
 * sees no row. Every change bumps `version`.
 */
export async function transition(
  db: Executor,
  id: string,
  from: OrderStatus[],
  to: OrderStatus,
  changes: TransitionChanges = {},
  expected?: ExpectedVersions,
): Promise<boolean> {
  let update = db
    .updateTable('orders')
    .set({ ...changes, status: to, version: sql<number>`version + 1`, updated_at: sql<Date>`now()` })
    .where('id', '=', id)
    .where('status', 'in', from);
  if (expected) update = update.where(versionCondition('version', expected));
  const result = await update.executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export interface OrderPageQuery {
  /** Only orders of customers owned by this user; null for every order. */
  ownerId: string | null;
  orders: { field: OrderSortField; direction: 'asc' | 'desc' }[];
  page: number;
  size: number;
}

export async function pageOrders(db: Executor, query: OrderPageQuery): Promise<{ rows: OrderRecord[]; total: number }> {
  let rows = orderQuery(db);
  let count = db.selectFrom('orders').innerJoin('customers', 'customers.id', 'orders.customer_id');
  if (query.ownerId !== null) {
    rows = rows.where('customers.user_id', '=', query.ownerId);
    count = count.where('customers.user_id', '=', query.ownerId);
  }
  for (const order of query.orders) rows = rows.orderBy(sql.ref(COLUMNS[order.field]), order.direction);
  const [items, total] = await Promise.all([
    rows
      .orderBy('orders.id', 'asc')
      .limit(query.size)
      .offset(query.page * query.size)
      .execute(),
    count.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows: items as OrderRecord[], total: Number(total.n) };
}
