import { sql, type Kysely } from 'kysely';

/**
 * The self-serve portal (issue 45): a link an ADMIN creates for a tenant and a set of intents
 * (`sso`, `domains`, `scim`, `webhooks`), single-use and short-lived, and the portal sessions opened
 * with it. Only digests of the link and session tokens are stored (the tokens are shown once). A
 * session carries its link's tenant and intents, and has an absolute end and an idle end
 * (`last_seen_at`); deleting the tenant deletes both.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table portal_links (
      id uuid primary key default gen_random_uuid(),
      tenant_id text not null references tenants (id) on delete cascade,
      intents text[] not null check (cardinality(intents) > 0),
      token_sha256 text not null unique,
      -- Who created it: the caller's user id (an operator's token may name no stored user).
      created_by text not null,
      created_at timestamptz not null default now(),
      expires_at timestamptz not null,
      used_at timestamptz
    )`.execute(db);
  await sql`
    create table portal_sessions (
      id uuid primary key default gen_random_uuid(),
      tenant_id text not null references tenants (id) on delete cascade,
      link_id uuid not null references portal_links (id) on delete cascade,
      intents text[] not null,
      token_sha256 text not null unique,
      created_at timestamptz not null default now(),
      expires_at timestamptz not null,
      last_seen_at timestamptz not null default now(),
      ended_at timestamptz
    )`.execute(db);
  await sql`create index portal_sessions_link_idx on portal_sessions (link_id)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table portal_sessions`.execute(db);
  await sql`drop table portal_links`.execute(db);
}
