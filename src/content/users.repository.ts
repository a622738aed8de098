import { sql } from 'kysely';
import type { UsersRow } from '../../generated/db/types.ts';
import type { Executor } from '../db/transaction.ts';

export interface NewUser {
  username: string;
  email: string;
  display_name: string;
  bio?: string | null;
  avatar_url?: string | null;
}

export function findUserById(db: Executor, id: string): Promise<UsersRow | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

export function findUsersByIds(db: Executor, ids: readonly string[]): Promise<UsersRow[]> {
  if (!ids.length) return Promise.resolve([]);
  return db.selectFrom('users').selectAll().where('id', 'in', ids).execute();
}

export async function listUsers(db: Executor, offset: number, limit: number): Promise<{ rows: UsersRow[]; total: number }> {
  // Page and count in one round trip: the window count is computed over the whole filtered set.
  const rows = await db
    .selectFrom('users')
    .selectAll()
    .select(sql<number>`count(*) over ()`.as('total_count'))
    .where('active', '=', true)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .offset(offset)
    .limit(limit)
    .execute();
  if (rows.length) return { rows, total: Number(rows[0]!.total_count) };
  const { count } = await db
    .selectFrom('users')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('active', '=', true)
    .executeTakeFirstOrThrow();
  return { rows: [], total: Number(count) };
}

export function insertUser(db: Executor, user: NewUser): Promise<UsersRow> {
  return db.insertInto('users').values(user).returningAll().executeTakeFirstOrThrow();
}
