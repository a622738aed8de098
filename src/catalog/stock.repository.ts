/**
 * The stock of a product, which orders take and give back: the catalog owns the products table,
 * so the orders area changes stock through these functions, in its own transaction.
 */
import { sql } from 'kysely';
import type { Executor } from '../db/transaction.ts';

/** Takes the stock if enough is left, atomically; returns the product's snapshot, or undefined. */
export function takeStock(db: Executor, productId: string, quantity: number) {
  return db
    .updateTable('products')
    .set({ stock_quantity: sql<number>`stock_quantity - ${quantity}` })
    .where('id', '=', productId)
    .where('stock_quantity', '>=', quantity)
    .returning(['id', 'name', 'price'])
    .executeTakeFirst();
}

export async function stockOf(db: Executor, productId: string): Promise<number | undefined> {
  const row = await db.selectFrom('products').select('stock_quantity').where('id', '=', productId).executeTakeFirst();
  return row?.stock_quantity;
}

/** Returns an order's quantities (its `order_items`) to the products that still exist. */
export async function releaseStock(db: Executor, orderId: string): Promise<void> {
  await sql`
    update products set stock_quantity = products.stock_quantity + order_items.quantity
    from order_items
    where order_items.order_id = ${orderId} and products.id = order_items.product_id`.execute(db);
}
