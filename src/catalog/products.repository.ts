import { sql, type ExpressionBuilder, type SelectQueryBuilder } from 'kysely';
import { jsonArrayFrom } from 'kysely/helpers/postgres';
import type {
  DB,
  NewProductImagesRow,
  NewProductsRow,
  ProductImagesRow,
  ProductsRow,
  ProductsRowChanges,
} from '../../generated/db/types.ts';
import type { Executor } from '../db/transaction.ts';
import { versionCondition, type ExpectedVersions } from '../db/versioning.ts';
import { deleteBlobs } from '../files/blobs.repository.ts';
import { relevance, searchCondition, searchTerms } from './products.search.ts';

export interface ProductAttribute {
  key: string;
  value: string;
}

/** An image as embedded in a product (JSON aggregation returns its timestamp as text). */
export interface ProductImageSummary {
  id: string;
  product_id: string;
  content_type: string;
  size: number;
  width: number | null;
  height: number | null;
  created_at: string | Date;
}

export type ProductRecord = ProductsRow & { attributes: ProductAttribute[]; images: ProductImageSummary[] };

/** One page of a product list and the size of the whole list. */
export interface ProductPage {
  items: ProductRecord[];
  totalElements: number;
}

/**
 * The columns of a product a caller writes (`price` is exact decimal text, e.g. "19.99"): the
 * generated row types less what this module keeps itself: the id and `created_at` the database
 * assigns, `version` and `updated_at` that every update bumps (updateProduct).
 */
type OwnColumns = 'id' | 'created_at' | 'updated_at' | 'version';
export type NewProduct = Omit<NewProductsRow, OwnColumns>;
export type ProductChanges = Omit<ProductsRowChanges, OwnColumns>;

export type ProductSortField = 'relevance' | 'name' | 'price' | 'sku' | 'category' | 'stockQuantity' | 'createdAt' | 'updatedAt';

export interface ProductQuery {
  search?: { q: string; minPrice?: number; maxPrice?: number; category?: string };
  orders: { field: ProductSortField; direction: 'asc' | 'desc' }[];
  page: number;
  size: number;
}

const COLUMNS: Record<Exclude<ProductSortField, 'relevance'>, string> = {
  name: 'products.name',
  price: 'products.price',
  sku: 'products.sku',
  category: 'products.category',
  stockQuantity: 'products.stock_quantity',
  createdAt: 'products.created_at',
  updatedAt: 'products.updated_at',
};

function withDetails(eb: ExpressionBuilder<DB, 'products'>) {
  return [
    jsonArrayFrom(
      eb
        .selectFrom('product_attributes')
        .select(['product_attributes.key', 'product_attributes.value'])
        .whereRef('product_attributes.product_id', '=', 'products.id')
        .orderBy('product_attributes.position'),
    ).as('attributes'),
    jsonArrayFrom(
      eb
        .selectFrom('product_images')
        .select(['id', 'product_id', 'content_type', 'size', 'width', 'height', 'created_at'])
        .whereRef('product_images.product_id', '=', 'products.id')
        .orderBy('product_images.created_at')
        .orderBy('product_images.id'),
    ).as('images'),
  ];
}

export async function findProductById(db: Executor, id: string): Promise<ProductRecord | undefined> {
  return db.selectFrom('products').selectAll('products').select(withDetails).where('products.id', '=', id).executeTakeFirst();
}

function filtered(db: Executor, search: ProductQuery['search']): SelectQueryBuilder<DB, 'products', object> {
  let query = db.selectFrom('products');
  if (!search) return query;
  query = query.where(searchCondition(searchTerms(search.q)));
  // Bounds compared as numeric in SQL: String(0.1) is "0.1", exact for numeric.
  if (search.minPrice !== undefined) query = query.where('products.price', '>=', sql<string>`${String(search.minPrice)}::numeric`);
  if (search.maxPrice !== undefined) query = query.where('products.price', '<=', sql<string>`${String(search.maxPrice)}::numeric`);
  if (search.category !== undefined) query = query.where('products.category', '=', search.category);
  return query;
}

/** One page and the total count, both computed in SQL; `id` ascending breaks every tie. */
export async function pageProducts(db: Executor, query: ProductQuery): Promise<{ rows: ProductRecord[]; total: number }> {
  let rows = filtered(db, query.search).selectAll('products').select(withDetails);
  for (const order of query.orders) {
    if (order.field === 'relevance') {
      if (query.search) rows = rows.orderBy(relevance(searchTerms(query.search.q)), order.direction);
    } else {
      rows = rows.orderBy(sql.ref(COLUMNS[order.field]), order.direction);
    }
  }
  rows = rows
    .orderBy('products.id', 'asc')
    .limit(query.size)
    .offset(query.page * query.size);
  const [items, count] = await Promise.all([
    rows.execute(),
    filtered(db, query.search)
      .select((eb) => eb.fn.countAll<number>().as('total'))
      .executeTakeFirstOrThrow(),
  ]);
  return { rows: items, total: Number(count.total) };
}

export async function insertProduct(db: Executor, product: NewProduct, attributes: ProductAttribute[]): Promise<string> {
  const { id } = await db.insertInto('products').values(product).returning('id').executeTakeFirstOrThrow();
  await insertAttributes(db, id, attributes);
  return id;
}

async function insertAttributes(db: Executor, productId: string, attributes: ProductAttribute[]): Promise<void> {
  if (!attributes.length) return;
  await db
    .insertInto('product_attributes')
    .values(attributes.map((a, position) => ({ product_id: productId, position, key: a.key, value: a.value })))
    .execute();
}

/**
 * Updates the given columns (and `updated_at`) and bumps `version`, comparing it with `expected` in
 * the same statement; false when the product does not exist or has another version.
 */
export async function updateProduct(db: Executor, id: string, changes: ProductChanges, expected?: ExpectedVersions): Promise<boolean> {
  let update = db
    .updateTable('products')
    .set({ ...changes, version: sql<number>`version + 1`, updated_at: sql<Date>`now()` })
    .where('id', '=', id);
  if (expected) update = update.where(versionCondition('version', expected));
  const result = await update.executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function productVersion(db: Executor, id: string): Promise<number | undefined> {
  return (await db.selectFrom('products').select('version').where('id', '=', id).executeTakeFirst())?.version;
}

export async function replaceAttributes(db: Executor, productId: string, attributes: ProductAttribute[]): Promise<void> {
  await db.deleteFrom('product_attributes').where('product_id', '=', productId).execute();
  await insertAttributes(db, productId, attributes);
}

/** Deletes the product, its attributes, its images and their stored bytes; false when absent. */
export async function deleteProduct(db: Executor, id: string): Promise<boolean> {
  const blobs = await db.selectFrom('product_images').select('blob_id').where('product_id', '=', id).execute();
  const result = await db.deleteFrom('products').where('id', '=', id).executeTakeFirst();
  await deleteBlobs(
    db,
    blobs.map((b) => b.blob_id),
  );
  return result.numDeletedRows > 0n;
}

export async function productExists(db: Executor, id: string, lock = false): Promise<boolean> {
  let query = db.selectFrom('products').select('id').where('id', '=', id);
  if (lock) query = query.forUpdate();
  return (await query.executeTakeFirst()) !== undefined;
}

export async function insertImage(db: Executor, image: NewProductImagesRow): Promise<ProductImagesRow> {
  return db.insertInto('product_images').values(image).returningAll().executeTakeFirstOrThrow();
}

export function findImage(db: Executor, productId: string, imageId: string): Promise<ProductImagesRow | undefined> {
  return db.selectFrom('product_images').selectAll().where('id', '=', imageId).where('product_id', '=', productId).executeTakeFirst();
}
