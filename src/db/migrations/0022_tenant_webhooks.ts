import { sql, type Kysely } from 'kysely';

/**
 * Webhook endpoints of a tenant (issue 44): an endpoint belongs to a tenant, whose ADMIN manages it
 * and which receives that tenant's events only, or to the platform (`tenant_id` null), managed by
 * a platform ADMIN and receiving platform events, and every tenant's too when `all_tenants` says
 * so explicitly. An event names the tenant it belongs to (null: a platform event), and the
 * outbox's fan-out matches the two (outbox.repository.ts). Deleting a tenant deletes its endpoints.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table webhook_endpoints
      add column tenant_id text references tenants (id) on delete cascade,
      add column all_tenants boolean not null default false,
      add constraint webhook_endpoints_all_tenants_platform check (tenant_id is null or not all_tenants)`.execute(db);
  await sql`create index webhook_endpoints_tenant_idx on webhook_endpoints (tenant_id)`.execute(db);
  await sql`alter table webhook_events add column tenant_id text`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table webhook_events drop column tenant_id`.execute(db);
  await sql`drop index webhook_endpoints_tenant_idx`.execute(db);
  await sql`
    alter table webhook_endpoints
      drop constraint webhook_endpoints_all_tenants_platform,
      drop column all_tenants,
      drop column tenant_id`.execute(db);
}
