import { sql, type Kysely } from 'kysely';

/**
 * Tenants become rows: `users.tenant_id` (text since 0001, always `default` so far) now references
 * one, and each tenant's SCIM clients authenticate with tokens stored only as their SHA-256.
 *
 * A tenant id is a slug (lower-case letters, digits and inner hyphens, 1 to 63 characters: a DNS
 * label), because it appears in URLs (`/auth/saml/{tenantId}/callback`) and never changes. The check
 * is the rule's last line; openapi/admin.yaml states the same pattern for the API.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('tenants')
    .addColumn('id', 'text', (c) => c.primaryKey().check(sql`id ~ '^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$'`))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await sql`create index tenants_created_at_idx on tenants (created_at desc, id)`.execute(db);
  await sql`insert into tenants (id, name) values ('default', 'Default')`.execute(db);
  // Nothing could set another tenant before this migration; should a database hold one anyway, it
  // becomes a tenant of its own (or the slug check names it) rather than failing the foreign key.
  await sql`insert into tenants (id, name) select distinct tenant_id, tenant_id from users on conflict (id) do nothing`.execute(db);
  await db.schema.alterTable('users').addForeignKeyConstraint('users_tenant_fk', ['tenant_id'], 'tenants', ['id']).execute();
  // The foreign key needs an index on the referencing side for look-ups by tenant; the unique
  // (tenant_id, lower(username)) index of 0001 already leads with tenant_id.

  await db.schema
    .createTable('scim_tokens')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    // Hex SHA-256 of the whole token: the token itself is shown once and never stored.
    .addColumn('token_sha256', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('last_used_at', 'timestamptz')
    .addColumn('revoked_at', 'timestamptz')
    .execute();
  await sql`create index scim_tokens_tenant_idx on scim_tokens (tenant_id, created_at desc, id)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('scim_tokens').execute();
  await db.schema.alterTable('users').dropConstraint('users_tenant_fk').execute();
  await db.schema.dropTable('tenants').execute();
}
