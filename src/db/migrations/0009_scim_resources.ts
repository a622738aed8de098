import { sql, type Kysely } from 'kysely';

/**
 * What SCIM 2.0 provisioning keeps beyond the user record of 0001: the attributes identity
 * providers send (the multi-valued `emails` as sent, the enterprise extension's employee number,
 * department and manager), a `version` counter for `meta.version` (a weak ETag that `If-Match`
 * checks), and groups with their members, where single sign-on's group-to-role mapping reads them.
 *
 * `users.email` stays the one address the rest of the application uses (the primary, or the first
 * of `emails`); `users.emails` holds the whole SCIM value so filters such as
 * `emails[type eq "work"]` have something to match, and is null for users that never came by SCIM.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('users')
    .addColumn('emails', 'jsonb')
    .addColumn('employee_number', 'text')
    .addColumn('department', 'text')
    .addColumn('manager_id', 'text', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('version', 'integer', (c) => c.notNull().defaultTo(1))
    .execute();
  await sql`create index users_manager_idx on users (manager_id) where manager_id is not null`.execute(db);
  // SCIM lists and filters are always within one tenant, ordered by creation by default.
  await sql`create index users_tenant_created_idx on users (tenant_id, created_at, id)`.execute(db);

  await db.schema
    .createTable('groups')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('display_name', 'text', (c) => c.notNull())
    .addColumn('external_id', 'text')
    .addColumn('version', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await sql`create unique index groups_tenant_display_name_uq on groups (tenant_id, lower(display_name))`.execute(db);
  await sql`create unique index groups_tenant_external_id_uq on groups (tenant_id, external_id) where external_id is not null`.execute(db);
  await sql`create index groups_tenant_created_idx on groups (tenant_id, created_at, id)`.execute(db);

  await db.schema
    .createTable('group_members')
    .addColumn('group_id', 'uuid', (c) => c.notNull().references('groups.id').onDelete('cascade'))
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('added_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('group_members_pk', ['group_id', 'user_id'])
    .execute();
  await sql`create index group_members_user_idx on group_members (user_id)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('group_members').execute();
  await db.schema.dropTable('groups').execute();
  await db.schema
    .alterTable('users')
    .dropColumn('emails')
    .dropColumn('employee_number')
    .dropColumn('department')
    .dropColumn('manager_id')
    .dropColumn('version')
    .execute();
}
