import { sql } from 'kysely';
import type { NewUsersRow, UsersRow, UsersRowChanges } from '../../generated/db/types.ts';
import type { Executor } from '../db/transaction.ts';
import { notFound } from '../errors.ts';

/**
 * The profile a user writes through GraphQL (createUser, updateUser): an allow-list of columns, not
 * the whole row, on purpose. `users` also holds identity's columns (tenant, roles, password digest,
 * SCIM attributes, address proof), which only src/identity/ writes; a new column of that kind stays
 * out of this public path until it is named here.
 */
type ProfileColumns = 'display_name' | 'bio' | 'avatar_url';
type NewUser = Pick<NewUsersRow, 'username' | 'email' | ProfileColumns>;
export type UserChanges = Pick<UsersRowChanges, ProfileColumns>;

/** The user by id; `lock`: FOR UPDATE, so that a change reads the row it replaces. */
export const userNotFound = (id: string) => notFound(`User not found: ${id}`, 'USER_NOT_FOUND');

/**
 * The user `id`, or USER_NOT_FOUND: the check every area makes before it writes on a user's behalf
 * (a token may name a user that no longer exists), here so that each reaches it in one hop.
 */
export async function requireUser(db: Executor, id: string, lock = false): Promise<UsersRow> {
  const user = await findUserById(db, id, lock);
  if (!user) throw userNotFound(id);
  return user;
}

export function findUserById(db: Executor, id: string, lock = false): Promise<UsersRow | undefined> {
  return db
    .selectFrom('users')
    .selectAll()
    .where('id', '=', id)
    .$if(lock, (q) => q.forUpdate())
    .executeTakeFirst();
}

export function findUsersByIds(db: Executor, ids: readonly string[]): Promise<UsersRow[]> {
  if (!ids.length) return Promise.resolve([]);
  return db.selectFrom('users').selectAll().where('id', 'in', ids).execute();
}

/** Active users, of `tenantId` only unless it is null (src/users/user-directory.ts decides which). */
export function directory(db: Executor, tenantId: string | null) {
  const active = db.selectFrom('users').where('active', '=', true);
  return tenantId === null ? active : active.where('tenant_id', '=', tenantId);
}

export async function listUsers(
  db: Executor,
  tenantId: string | null,
  offset: number,
  limit: number,
): Promise<{ rows: UsersRow[]; total: number }> {
  // Page and count in one round trip: the window count is computed over the whole filtered set.
  const rows = await directory(db, tenantId)
    .selectAll()
    .select(sql<number>`count(*) over ()`.as('total_count'))
    .orderBy('created_at', 'asc')
    .orderBy('id', 'asc')
    .offset(offset)
    .limit(limit)
    .execute();
  if (rows.length) return { rows, total: Number(rows[0]!.total_count) };
  const { count } = await directory(db, tenantId)
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .executeTakeFirstOrThrow();
  return { rows: [], total: Number(count) };
}

export function listAllUsers(db: Executor, tenantId: string | null): Promise<UsersRow[]> {
  return directory(db, tenantId).selectAll().orderBy('created_at', 'asc').orderBy('id', 'asc').execute();
}

/**
 * Ranked search (the order documented on `searchUsers`): exact, then prefix, then word-start in the
 * display name, then any substring; within a rank the shortest matching text (the closest to the
 * query, i.e. the most similar) first. `strpos`/`starts_with` instead of LIKE, so `%` and `_` in the
 * query are plain characters and need no escaping.
 */
export function searchUsers(db: Executor, tenantId: string | null, query: string, limit: number): Promise<UsersRow[]> {
  return searchUsersQuery(db, tenantId, query, limit).execute();
}

/** `searchUsers` as a query (the GraphQL planner nests it), in its ranking order. */
export function searchUsersQuery(db: Executor, tenantId: string | null, query: string, limit: number) {
  const q = sql<string>`lower(${query})`;
  const inUsername = sql<boolean>`strpos(lower(username), ${q}) > 0`;
  const inDisplayName = sql<boolean>`strpos(lower(display_name), ${q}) > 0`;
  return directory(db, tenantId)
    .selectAll()
    .where(sql<boolean>`(${inUsername} or ${inDisplayName})`)
    .orderBy(
      sql`case
        when lower(username) = ${q} or lower(display_name) = ${q} then 0
        when starts_with(lower(username), ${q}) or starts_with(lower(display_name), ${q}) then 1
        when strpos(lower(display_name), ' ' || ${q}) > 0 then 2
        else 3 end`,
    )
    .orderBy(sql`least(case when ${inUsername} then length(username) end, case when ${inDisplayName} then length(display_name) end)`)
    .orderBy(sql`lower(username)`)
    .orderBy('id')
    .limit(limit);
}

export function insertUser(db: Executor, user: NewUser): Promise<UsersRow> {
  return db.insertInto('users').values(user).returningAll().executeTakeFirstOrThrow();
}

export function updateUser(db: Executor, id: string, changes: UserChanges): Promise<UsersRow | undefined> {
  // A display name the user chose is theirs, no longer one derived for a SCIM user who had none.
  const chosen = changes.display_name !== undefined ? { display_name_derived: false } : {};
  return (
    db
      .updateTable('users')
      // The version moves with every change a client can read (SCIM's ETag, events' sequence).
      .set({ ...changes, ...chosen, version: sql<number>`version + 1`, updated_at: sql`now()` })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirst()
  );
}

/**
 * Deletes the user, when it belongs to `tenantId` (null: whatever its tenant) and, when `version` is
 * given, is still at that version; the row it deleted, or undefined. What goes with the user and what stays is the
 * schema's rule (foreign keys and migration 0017's triggers, decision 67), so no caller can do less.
 */
export function deleteUser(db: Executor, id: string, scope: { tenantId: string | null; version?: number }): Promise<UsersRow | undefined> {
  let query = db.deleteFrom('users').where('id', '=', id);
  if (scope.tenantId !== null) query = query.where('tenant_id', '=', scope.tenantId);
  if (scope.version !== undefined) query = query.where('version', '=', scope.version);
  return query.returningAll().executeTakeFirst();
}

/**
 * How many accounts with an address at `domain` (any tenant: enforcement goes by address) have a
 * password. A scan of the users table, for an administrator's question, not a request's hot path.
 */
export async function countPasswordAccountsAt(db: Executor, domain: string): Promise<number> {
  const row = await db
    .selectFrom('users')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('password_hash', 'is not', null)
    .where(sql<string>`lower(split_part(email, '@', 2))`, '=', domain.toLowerCase())
    .executeTakeFirstOrThrow();
  return Number(row.count);
}
