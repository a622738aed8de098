import { sql, type Kysely } from 'kysely';

/**
 * SCIM provisioning activity (issue 45, the portal's SCIM screen): one row per request to /scim/v2
 * that a tenant's SCIM token authenticated, written after the response by the SCIM area
 * (src/identity/scim/scim-activity.repository.ts). What the call was (method, operation, resource
 * type, id and a short label: userName or displayName) and how it ended (status; for a failure, the
 * SCIM error's scimType and its detail, cut to 300 characters). Never a token, a header, a password
 * or a body. `outcome` is checked against `status`, so the two cannot disagree.
 * `position` orders rows of the same millisecond. Bounded by a periodic sweep (the newest 1,000 per
 * tenant, nothing older than 30 days); rows go with their tenant.
 *
 * A deleted user leaves no row naming them (decision 202): deleting a user clears the id and label
 * of the activity about them, and a row written after the deletion (the DELETE's own, recorded once
 * its answer went out) is written without them. Triggers, so plain SQL deletes obey it too.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table scim_activity (
      id uuid primary key default gen_random_uuid(),
      position bigint generated always as identity,
      tenant_id text not null references tenants (id) on delete cascade,
      at timestamptz not null,
      method text not null,
      operation text not null check (operation in ('list', 'get', 'create', 'replace', 'patch', 'delete', 'other')),
      resource_type text check (resource_type in ('User', 'Group', 'ServiceProviderConfig', 'Schemas', 'ResourceTypes')),
      resource_id text,
      resource_label text,
      status integer not null check (status between 100 and 599),
      outcome text not null check (outcome = case when status between 200 and 299 then 'success' else 'failure' end),
      scim_type text,
      detail text check (char_length(detail) <= 300)
    )`.execute(db);
  await sql`create index scim_activity_tenant_idx on scim_activity (tenant_id, at desc, position desc)`.execute(db);
  await sql`
    create function scim_activity_forget_user() returns trigger language plpgsql as $$
    begin
      update scim_activity set resource_id = null, resource_label = null, detail = replace(detail, old.id::text, 'a deleted user')
        where tenant_id = old.tenant_id and resource_type = 'User' and resource_id = old.id::text;
      return old;
    end $$`.execute(db);
  await sql`create trigger users_forget_scim_activity after delete on users for each row execute function scim_activity_forget_user()`.execute(
    db,
  );
  await sql`
    create function scim_activity_unnamed_if_deleted() returns trigger language plpgsql as $$
    begin
      if new.resource_type = 'User' and exists (select 1 from deleted_users where user_id = new.resource_id) then
        new.detail := replace(new.detail, new.resource_id, 'a deleted user');
        new.resource_id := null;
        new.resource_label := null;
      end if;
      return new;
    end $$`.execute(db);
  await sql`create trigger scim_activity_unnamed before insert on scim_activity for each row execute function scim_activity_unnamed_if_deleted()`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop trigger users_forget_scim_activity on users`.execute(db);
  await sql`drop function scim_activity_forget_user()`.execute(db);
  await sql`drop table scim_activity`.execute(db);
  await sql`drop function scim_activity_unnamed_if_deleted()`.execute(db);
}
