import { sql, type Kysely } from 'kysely';

/**
 * Catalog search and images, customers, orders and their lines, stored files and the config
 * document.
 *
 * Binary content lives in `blobs` + `blob_chunks` (512 KiB bytea rows) rather than one bytea per
 * file: uploads are written and downloads streamed chunk by chunk, so no request ever holds a whole
 * 10 MB file in memory, on PGlite or on PostgreSQL.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  // Full-text search over name and SKU (weight A) and description (weight B). The expression is
  // repeated verbatim in products.search.ts so the planner matches it to this index.
  await sql`
    create index products_search_fts_idx on products using gin ((
      setweight(to_tsvector('simple', name), 'A') ||
      setweight(to_tsvector('simple', sku), 'A') ||
      setweight(to_tsvector('simple', coalesce(description, '')), 'B')
    ))`.execute(db);
  // Substring matching ("alnu" in "Walnut") needs trigrams. pg_trgm ships with PostgreSQL but is not
  // loaded into embedded PGlite, where the substring arm of the search is a scan instead.
  const { rows } = await sql<{ present: boolean }>`
    select exists (select 1 from pg_available_extensions where name = 'pg_trgm') as present`.execute(db);
  if (rows[0]?.present) {
    await sql`create extension if not exists pg_trgm`.execute(db);
    await sql`
      create index products_search_trgm_idx on products using gin (
        (lower(name || chr(31) || coalesce(description, '') || chr(31) || sku)) gin_trgm_ops
      )`.execute(db);
  }
  for (const column of ['name', 'price', 'sku', 'category', 'stock_quantity', 'updated_at']) {
    await sql`create index ${sql.raw(`products_${column}_idx`)} on products (${sql.ref(column)}, id)`.execute(db);
  }

  await db.schema
    .createTable('blobs')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('size', 'bigint', (c) => c.notNull().check(sql`size >= 0`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema
    .createTable('blob_chunks')
    .addColumn('blob_id', 'uuid', (c) => c.notNull().references('blobs.id').onDelete('cascade'))
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('data', 'bytea', (c) => c.notNull())
    .addPrimaryKeyConstraint('blob_chunks_pk', ['blob_id', 'seq'])
    .execute();

  await db.schema
    .createTable('product_images')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('product_id', 'uuid', (c) => c.notNull().references('products.id').onDelete('cascade'))
    .addColumn('blob_id', 'uuid', (c) => c.notNull().references('blobs.id').onDelete('cascade'))
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('size', 'integer', (c) => c.notNull())
    .addColumn('width', 'integer')
    .addColumn('height', 'integer')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`clock_timestamp()`))
    .execute();
  await sql`create index product_images_product_idx on product_images (product_id, created_at, id)`.execute(db);

  await db.schema
    .createTable('files')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('blob_id', 'uuid', (c) => c.notNull().references('blobs.id').onDelete('cascade'))
    .addColumn('filename', 'text', (c) => c.notNull())
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('size', 'integer', (c) => c.notNull())
    .addColumn('uploaded_by', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  await db.schema
    .createTable('customers')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull())
    // The owning principal's username; null for customers no account owns (visible to ADMIN only).
    .addColumn('user_id', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await sql`create unique index customers_email_uq on customers (lower(email))`.execute(db);
  await sql`create index customers_user_idx on customers (user_id)`.execute(db);

  await db.schema
    .createTable('orders')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('customer_id', 'uuid', (c) => c.notNull().references('customers.id'))
    .addColumn('status', 'text', (c) =>
      c
        .notNull()
        .defaultTo('PENDING')
        .check(sql`status in ('PENDING', 'CONFIRMED', 'SHIPPED', 'DELIVERED', 'CANCELLED')`),
    )
    // Unbounded numeric: a sum of numeric(12,2) line totals stays exact whatever its size.
    .addColumn('total', 'numeric', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull().defaultTo('USD'))
    .addColumn('version', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('carrier', 'text')
    .addColumn('tracking_number', 'text')
    .addColumn('shipped_at', 'timestamptz')
    .addColumn('delivered_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await sql`create index orders_customer_idx on orders (customer_id, created_at desc, id)`.execute(db);
  await sql`create index orders_created_at_idx on orders (created_at desc, id)`.execute(db);

  await db.schema
    .createTable('order_items')
    .addColumn('order_id', 'uuid', (c) => c.notNull().references('orders.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    // No foreign key: a line keeps its snapshot when the product is deleted later.
    .addColumn('product_id', 'uuid', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('quantity', 'integer', (c) => c.notNull().check(sql`quantity > 0`))
    .addColumn('unit_price', sql`numeric(12, 2)`, (c) => c.notNull())
    .addColumn('line_total', 'numeric', (c) => c.notNull())
    .addPrimaryKeyConstraint('order_items_pk', ['order_id', 'position'])
    .execute();

  // One row, ever: the version is the revision number, bumped by every update.
  await db.schema
    .createTable('app_config')
    .addColumn('id', 'integer', (c) => c.primaryKey().check(sql`id = 1`))
    .addColumn('revision', 'integer', (c) => c.notNull())
    .addColumn('settings', 'jsonb', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await sql`insert into app_config (id, revision, settings) values (1, 1, '{}'::jsonb)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['app_config', 'order_items', 'orders', 'customers', 'files', 'product_images', 'blob_chunks', 'blobs']) {
    await db.schema.dropTable(table).execute();
  }
  await sql`drop index if exists products_search_trgm_idx`.execute(db);
  await sql`drop index products_search_fts_idx`.execute(db);
  for (const column of ['name', 'price', 'sku', 'category', 'stock_quantity', 'updated_at']) {
    await sql`drop index ${sql.raw(`products_${column}_idx`)}`.execute(db);
  }
}
