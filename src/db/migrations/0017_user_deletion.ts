import { sql, type Kysely } from 'kysely';

/**
 * Deleting a user is one rule, whoever deletes the row (SCIM, GraphQL's deleteUser, plain SQL;
 * decision 67). Posts, comments, likes, follows, memberships and sessions already go by their
 * foreign keys. `customers.user_id` and `files.uploaded_by` hold the principal's subject, which may
 * be no stored user (an operator's JWT), so they cannot have a foreign key; these triggers give them
 * the `on delete` a foreign key would: customers are kept with no owner (`set null`), files go with
 * their bytes (`cascade`). Before the row goes, the users it managed (whose manager the foreign key
 * clears) and the groups it was in get a new version: what a SCIM client reads of them changes.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create function users_deleting() returns trigger language plpgsql as $$
    begin
      update users set version = version + 1, updated_at = now() where manager_id = old.id;
      update groups set version = version + 1, updated_at = now()
        where id in (select group_id from group_members where user_id = old.id);
      return old;
    end $$`.execute(db);
  await sql`create trigger users_deleting before delete on users for each row execute function users_deleting()`.execute(db);

  // A blob belongs to the one upload that stored it; one still named by another file or a product
  // image stays. Deleting a blob deletes its file rows (files.blob_id cascades).
  await sql`
    create function users_deleted_records() returns trigger language plpgsql as $$
    begin
      update customers set user_id = null where user_id = old.id;
      delete from blobs
        where id in (select blob_id from files where uploaded_by = old.id)
          and id not in (select blob_id from product_images)
          and id not in (select blob_id from files where uploaded_by <> old.id);
      delete from files where uploaded_by = old.id;
      return null;
    end $$`.execute(db);
  await sql`
    create trigger users_deleted_records after delete on users
    for each row execute function users_deleted_records()`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop trigger users_deleted_records on users`.execute(db);
  await sql`drop function users_deleted_records()`.execute(db);
  await sql`drop trigger users_deleting on users`.execute(db);
  await sql`drop function users_deleting()`.execute(db);
}
