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
