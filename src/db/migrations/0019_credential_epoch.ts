import { sql, type Kysely } from 'kysely';

/**
 * The credential epoch: one counter that every change able to alter what a credential stands for
 * raises, in the same transaction as the change (decision 151). A credential answer read together
 * with the epoch stays the database's answer for as long as the epoch has not moved, so an instance
 * may keep it after checking the epoch again, instead of running the credential query per request.
 *
 * What a credential stands for is read from: `sessions` (revoked, expiry, roles, user, tenant),
 * `users` (existence, active, roles, tenant), `deleted_users`, `group_members`, `groups` (name,
 * tenant) and `identity_providers` (role mapping, tenant). Changes that alter none of it leave the
 * epoch alone: a session's `last_seen_at`, a new session (its token was never answered), a new empty
 * group, a user's name or e-mail.
 *
 * The counter is raised by deferred constraint triggers, so at commit: a transaction holds the
 * counter's row lock only from its commit on, never while it still takes other locks, which would
 * let two transactions that change, say, a user and a group membership in opposite order deadlock.
 * A transaction raises it once (a transaction-local setting remembers it), however many rows it
 * changes. TRUNCATE has no row triggers; a statement trigger raises it at once.
 */
const WATCHED: { table: string; columns?: string; insert: boolean }[] = [
  { table: 'sessions', columns: 'revoked_at, expires_at, roles, user_id, tenant_id, token_sha256', insert: false },
  { table: 'users', columns: 'id, active, roles, tenant_id', insert: true },
  { table: 'deleted_users', insert: true },
  { table: 'group_members', insert: true },
  { table: 'groups', columns: 'id, display_name, tenant_id', insert: false },
  { table: 'identity_providers', columns: 'role_mapping, tenant_id', insert: true },
];

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table credential_epoch (
      one boolean primary key default true check (one),
      epoch bigint not null
    )`.execute(db);
  await sql`insert into credential_epoch (one, epoch) values (true, 0)`.execute(db);
  await sql`
    create function credential_epoch_raise() returns trigger language plpgsql as $$
    begin
      if current_setting('credential_epoch.raised', true) is distinct from 'yes' then
        update credential_epoch set epoch = epoch + 1;
        perform set_config('credential_epoch.raised', 'yes', true);
      end if;
      return null;
    end $$`.execute(db);
  for (const { table, columns, insert } of WATCHED) {
    const events = [insert ? 'insert' : null, columns ? `update of ${columns}` : 'update', 'delete'].filter(Boolean).join(' or ');
    await sql
      .raw(
        `create constraint trigger ${table}_credential_epoch after ${events} on ${table}
         deferrable initially deferred for each row execute function credential_epoch_raise()`,
      )
      .execute(db);
    await sql
      .raw(
        `create trigger ${table}_credential_epoch_truncate after truncate on ${table} for each statement execute function credential_epoch_raise()`,
      )
      .execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const { table } of WATCHED) {
    await sql.raw(`drop trigger ${table}_credential_epoch on ${table}`).execute(db);
    await sql.raw(`drop trigger ${table}_credential_epoch_truncate on ${table}`).execute(db);
  }
  await sql`drop function credential_epoch_raise()`.execute(db);
  await sql`drop table credential_epoch`.execute(db);
}
