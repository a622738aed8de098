import { jsonArrayFrom } from 'kysely/helpers/postgres';
import type { ProductsRow } from '../../generated/db/types.ts';
import type { Executor } from '../db/transaction.ts';

export interface ProductAttribute {
  key: string;
  value: string;
}

export type ProductRecord = ProductsRow & { attributes: ProductAttribute[] };

export interface NewProduct {
  name: string;
  description: string | null;
  /** Exact decimal text, e.g. "19.99". */
  price: string;
  sku: string;
  category: string;
  stock_quantity: number;
}

export function findProductById(db: Executor, id: string): Promise<ProductRecord | undefined> {
  return db
    .selectFrom('products')
    .selectAll('products')
    .select((eb) => [
      jsonArrayFrom(
        eb
          .selectFrom('product_attributes')
          .select(['product_attributes.key', 'product_attributes.value'])
          .whereRef('product_attributes.product_id', '=', 'products.id')
          .orderBy('product_attributes.position'),
      ).as('attributes'),
    ])
    .where('products.id', '=', id)
    .executeTakeFirst();
}

export async function insertProduct(db: Executor, product: NewProduct, attributes: ProductAttribute[]): Promise<string> {
  const { id } = await db.insertInto('products').values(product).returning('id').executeTakeFirstOrThrow();
  if (attributes.length) {
    await db
      .insertInto('product_attributes')
      .values(attributes.map((a, position) => ({ product_id: id, position, key: a.key, value: a.value })))
      .execute();
  }
  return id;
}
