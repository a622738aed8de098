import { sql, type Kysely } from 'kysely';

/**
 * Server-side sessions, and what makes every credential that names a stored user revocable at once
 * (decision 63).
 *
 * - `sessions`: a long random token stored only as its SHA-256, the user and tenant it acts for, the
 *   roles granted at sign-in, an expiry, and a revocation time. Deleting the user deletes them.
 * - `deleted_users`: the ids of deleted users, so that a JWT naming one is refused rather than
 *   mistaken for an operator token whose subject was never stored.
 * - Triggers: deactivating a user (`active` true → false) revokes all of its sessions; deleting one
 *   records its id; and each of these, like revoking or deleting a session, sends a
 *   `credential_revoked` notification on commit, on which every instance closes the WebSocket
 *   connections of that user or session. Plain UPDATE and DELETE statements (SCIM, an operator in
 *   psql) therefore revoke as well as the services do.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('sessions')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    // Hex SHA-256 of the whole token: the token itself is returned once and never stored.
    .addColumn('token_sha256', 'text', (c) => c.notNull().unique())
    .addColumn('roles', sql`text[]`, (c) => c.notNull().defaultTo(sql`'{}'::text[]`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('last_seen_at', 'timestamptz')
    .addColumn('revoked_at', 'timestamptz')
    .execute();
  // Revoking all of a user's sessions, and the foreign key's cascade, look sessions up by user.
  await sql`create index sessions_user_idx on sessions (user_id)`.execute(db);

  await db.schema
    .createTable('deleted_users')
    .addColumn('user_id', 'text', (c) => c.primaryKey())
    .addColumn('deleted_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  await sql`
    create function users_credentials_revoked() returns trigger language plpgsql as $$
    begin
      if tg_op = 'DELETE' then
        insert into deleted_users (user_id) values (old.id) on conflict (user_id) do nothing;
        perform pg_notify('credential_revoked', json_build_object('userId', old.id)::text);
        return old;
      end if;
      update sessions set revoked_at = now() where user_id = new.id and revoked_at is null;
      perform pg_notify('credential_revoked', json_build_object('userId', new.id)::text);
      return new;
    end $$`.execute(db);
  await sql`
    create trigger users_deactivated after update of active on users
    for each row when (old.active and not new.active) execute function users_credentials_revoked()`.execute(db);
  await sql`
    create trigger users_deleted after delete on users
    for each row execute function users_credentials_revoked()`.execute(db);
  // A user created again under a deleted id (an import, a restore) is a stored user again.
  await sql`
    create function users_undeleted() returns trigger language plpgsql as $$
    begin
      delete from deleted_users where user_id = new.id;
      return new;
    end $$`.execute(db);
  await sql`create trigger users_inserted after insert on users for each row execute function users_undeleted()`.execute(db);

  await sql`
    create function sessions_revoked() returns trigger language plpgsql as $$
    begin
      perform pg_notify('credential_revoked', json_build_object('userId', old.user_id, 'sessionId', old.id)::text);
      return null;
    end $$`.execute(db);
  await sql`
    create trigger sessions_revoked after update of revoked_at on sessions
    for each row when (old.revoked_at is null and new.revoked_at is not null) execute function sessions_revoked()`.execute(db);
  await sql`create trigger sessions_deleted after delete on sessions for each row execute function sessions_revoked()`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop trigger users_deactivated on users`.execute(db);
  await sql`drop trigger users_deleted on users`.execute(db);
  await sql`drop trigger users_inserted on users`.execute(db);
  await db.schema.dropTable('sessions').execute();
  await db.schema.dropTable('deleted_users').execute();
  await sql`drop function users_credentials_revoked()`.execute(db);
  await sql`drop function users_undeleted()`.execute(db);
  await sql`drop function sessions_revoked()`.execute(db);
}
