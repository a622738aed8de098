import { sql, type Kysely } from 'kysely';

/**
 * Single sign-on per tenant (decision 87).
 *
 * - `users.password_hash` (scrypt, local sign-in only) and `users.roles`, the roles a user holds by
 *   itself: set by an operator, or by group-to-role mapping at each single sign-on.
 * - `identity_providers`: a tenant's one provider (SAML 2.0 or OpenID Connect). `settings` holds the
 *   protocol's fields as the API shows them; the OIDC client secret is kept apart, encrypted.
 * - `tenant_domains`: domains a tenant claims. Several tenants may claim a domain while it is
 *   pending; once one verifies it, the partial unique index makes it that tenant's alone.
 * - `sso_requests`: one-use records of a sign-in in flight (a SAML AuthnRequest id, an OIDC state),
 *   in the database so that the callback may reach any instance.
 * - `sso_seen_ids`: SAML assertion ids and OIDC logout token ids already accepted (replay), kept
 *   until the assertion or token would have expired anyway.
 * - `sessions.auth_method`, `idp_session_id` and `idp_subject`: how a session was signed in, and what
 *   a provider's back-channel logout names it by.
 * - `rate_limit_windows`: fixed one-minute windows of sign-in attempts, shared by every instance.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('users')
    .addColumn('password_hash', 'text')
    .addColumn('roles', sql`text[]`, (c) => c.notNull().defaultTo(sql`'{}'::text[]`))
    .execute();

  await db.schema
    .createTable('identity_providers')
    .addColumn('tenant_id', 'text', (c) => c.primaryKey().references('tenants.id').onDelete('cascade'))
    .addColumn('protocol', 'text', (c) => c.notNull().check(sql`protocol in ('saml', 'oidc')`))
    .addColumn('settings', 'jsonb', (c) => c.notNull())
    // AES-256-GCM under SECRETS_KEY: iv, tag and ciphertext in base64url, dot-separated.
    .addColumn('client_secret_enc', 'text')
    .addColumn('attribute_mapping', 'jsonb', (c) => c.notNull())
    .addColumn('role_mapping', 'jsonb', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  await db.schema
    .createTable('tenant_domains')
    .addColumn('domain', 'text', (c) => c.notNull().check(sql`domain = lower(domain)`))
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
    .addColumn('verification_token', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) =>
      c
        .notNull()
        .defaultTo('pending')
        .check(sql`status in ('pending', 'verified')`),
    )
    .addColumn('enforce_sso', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('mail_code_sha256', 'text')
    .addColumn('mail_code_expires_at', 'timestamptz')
    .addColumn('mail_code_attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('verified_at', 'timestamptz')
    .addPrimaryKeyConstraint('tenant_domains_pk', ['domain', 'tenant_id'])
    .execute();
  await sql`create unique index tenant_domains_verified_uq on tenant_domains (domain) where status = 'verified'`.execute(db);
  await sql`create index tenant_domains_tenant_idx on tenant_domains (tenant_id, created_at)`.execute(db);

  await db.schema
    .createTable('sso_requests')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
    .addColumn('protocol', 'text', (c) => c.notNull().check(sql`protocol in ('saml', 'oidc')`))
    .addColumn('return_to', 'text', (c) => c.notNull())
    .addColumn('relay_state', 'text')
    .addColumn('code_verifier', 'text')
    .addColumn('nonce', 'text')
    // An administrator's test sign-in: the callback reports what it would do and signs nobody in.
    .addColumn('test', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await sql`create index sso_requests_expiry_idx on sso_requests (expires_at)`.execute(db);

  await db.schema
    .createTable('sso_seen_ids')
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('saml-assertion', 'oidc-logout-token')`))
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addPrimaryKeyConstraint('sso_seen_ids_pk', ['tenant_id', 'kind', 'id'])
    .execute();
  await sql`create index sso_seen_ids_expiry_idx on sso_seen_ids (expires_at)`.execute(db);

  await db.schema
    .alterTable('sessions')
    .addColumn('auth_method', 'text', (c) =>
      c
        .notNull()
        .defaultTo('api')
        .check(sql`auth_method in ('api', 'local', 'saml', 'oidc')`),
    )
    .addColumn('idp_session_id', 'text')
    .addColumn('idp_subject', 'text')
    .execute();
  await sql`create index sessions_idp_session_idx on sessions (tenant_id, idp_session_id) where idp_session_id is not null`.execute(db);
  await sql`create index sessions_idp_subject_idx on sessions (tenant_id, idp_subject) where idp_subject is not null`.execute(db);

  await db.schema
    .createTable('rate_limit_windows')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('window_start', 'timestamptz', (c) => c.notNull())
    .addColumn('count', 'integer', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('rate_limit_windows').execute();
  await db.schema.alterTable('sessions').dropColumn('auth_method').dropColumn('idp_session_id').dropColumn('idp_subject').execute();
  await db.schema.dropTable('sso_seen_ids').execute();
  await db.schema.dropTable('sso_requests').execute();
  await db.schema.dropTable('tenant_domains').execute();
  await db.schema.dropTable('identity_providers').execute();
  await db.schema.alterTable('users').dropColumn('password_hash').dropColumn('roles').execute();
}
