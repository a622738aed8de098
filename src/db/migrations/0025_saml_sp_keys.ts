import { sql, type Kysely } from 'kysely';

/**
 * The service provider's own keys per tenant (issue 46, items 1 and 3): a table of key pairs, not
 * columns on `identity_providers`, because rotation keeps several of a use at once (the new one
 * beside the old for a grace period) and because the keys outlive a provider replaced by PUT (its
 * identity provider already trusts them). Keys go with their tenant.
 * - `use`: 'signing' (AuthnRequests, logout requests) or 'encryption' (what the provider encrypts
 *   assertions to);
 * - `private_key_sealed`: the PKCS#8 PEM sealed under SECRETS_KEY, bound to the row's id, like the
 *   webhook secrets: a copy of the database alone signs nothing;
 * - `retires_at`: set on the keys a rotation replaced, the end of their grace period: published and
 *   usable until then, ignored after (rows are kept for the record; nothing reads them).
 * `generation` numbers a tenant's rotations: the unique (tenant, use, generation) lets two instances
 * that both create a tenant's first keys, or both rotate at once, insert one row, the other reading it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table saml_sp_keys (
      id uuid primary key,
      tenant_id text not null references tenants(id) on delete cascade,
      use text not null check (use in ('signing', 'encryption')),
      generation integer not null,
      certificate_pem text not null,
      private_key_sealed text not null,
      created_at timestamptz not null default now(),
      retires_at timestamptz,
      unique (tenant_id, use, generation)
    )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table saml_sp_keys`.execute(db);
}
