import { sql, type Kysely } from 'kysely';

/**
 * The users table is the single user record for every way a user can arrive: created through the
 * GraphQL API (`local`), provisioned by SCIM, or just-in-time through SAML or OpenID Connect. Tenant,
 * external id and the active flag exist from the start so those paths never need a second table.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('users')
    .addColumn('id', 'text', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()::text`))
    .addColumn('tenant_id', 'text', (c) => c.notNull().defaultTo('default'))
    .addColumn('username', 'text', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('display_name', 'text', (c) => c.notNull())
    .addColumn('bio', 'text')
    .addColumn('avatar_url', 'text')
    .addColumn('given_name', 'text')
    .addColumn('family_name', 'text')
    .addColumn('external_id', 'text')
    .addColumn('source', 'text', (c) =>
      c
        .notNull()
        .defaultTo('local')
        .check(sql`source in ('local', 'scim', 'saml', 'oidc')`),
    )
    .addColumn('active', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await sql`create unique index users_tenant_username_uq on users (tenant_id, lower(username))`.execute(db);
  await sql`create unique index users_tenant_email_uq on users (tenant_id, lower(email))`.execute(db);
  await sql`create unique index users_tenant_external_id_uq on users (tenant_id, external_id) where external_id is not null`.execute(db);
  await sql`create index users_created_at_idx on users (created_at desc, id desc)`.execute(db);

  await db.schema
    .createTable('products')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    // numeric keeps prices exact; 10 integer and 2 fraction digits per the interface document.
    .addColumn('price', sql`numeric(12, 2)`, (c) => c.notNull().check(sql`price >= 0.01`))
    .addColumn('sku', 'text', (c) => c.notNull().unique())
    .addColumn('category', 'text', (c) => c.notNull())
    .addColumn('stock_quantity', 'integer', (c) =>
      c
        .notNull()
        .defaultTo(0)
        .check(sql`stock_quantity >= 0`),
    )
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await sql`create index products_created_at_idx on products (created_at desc, id desc)`.execute(db);

  await db.schema
    .createTable('product_attributes')
    .addColumn('product_id', 'uuid', (c) => c.notNull().references('products.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('value', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('product_attributes_pk', ['product_id', 'position'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('product_attributes').execute();
  await db.schema.dropTable('products').execute();
  await db.schema.dropTable('users').execute();
}
