import { sql } from 'kysely';
import type { UsersRow } from '../../generated/db/types.ts';
import type { Executor } from '../db/transaction.ts';

export async function follow(db: Executor, followerId: string, followeeId: string): Promise<void> {
  await db
    .insertInto('follows')
    .values({ follower_id: followerId, followee_id: followeeId })
    .onConflict((oc) => oc.doNothing())
    .execute();
}

export async function unfollow(db: Executor, followerId: string, followeeId: string): Promise<void> {
  await db.deleteFrom('follows').where('follower_id', '=', followerId).where('followee_id', '=', followeeId).execute();
}

/*
 * Deactivated accounts (active = false, e.g. by SCIM) are left out of follower lists and counts, as
 * out of every other list of users; the follow rows stay, so reactivation brings them back.
 */

/** A user row of a per-parent list: whose list it is on (`of_user`) and its place there (`rn`, from 1). */
export type ListedUser = UsersRow & { of_user: string; rn: number };

/**
 * The `limit` most recent active followers of each of `userIds`, most recent follow first (ties by
 * user id), tagged with whom they follow. One statement for every parent: row_number() ranks each
 * parent's rows, so the bound holds per parent rather than for the batch.
 */
export function followersOf(db: Executor, userIds: readonly string[], limit: number): Promise<ListedUser[]> {
  const ranked = db
    .selectFrom('follows')
    .innerJoin('users', 'users.id', 'follows.follower_id')
    .selectAll('users')
    .select([
      'follows.followee_id as of_user',
      sql<number>`row_number() over (partition by follows.followee_id order by follows.created_at desc, users.id)`.as('rn'),
    ])
    .where('follows.followee_id', 'in', userIds)
    .where('users.active', '=', true);
  return db.selectFrom(ranked.as('t')).selectAll().where('rn', '<=', limit).orderBy('of_user').orderBy('rn').execute();
}

/** The `limit` active users each of `userIds` followed most recently, most recent follow first (as followersOf). */
export function followingOf(db: Executor, userIds: readonly string[], limit: number): Promise<ListedUser[]> {
  const ranked = db
    .selectFrom('follows')
    .innerJoin('users', 'users.id', 'follows.followee_id')
    .selectAll('users')
    .select([
      'follows.follower_id as of_user',
      sql<number>`row_number() over (partition by follows.follower_id order by follows.created_at desc, users.id)`.as('rn'),
    ])
    .where('follows.follower_id', 'in', userIds)
    .where('users.active', '=', true);
  return db.selectFrom(ranked.as('t')).selectAll().where('rn', '<=', limit).orderBy('of_user').orderBy('rn').execute();
}

export function followerCounts(db: Executor, userIds: readonly string[]): Promise<{ user_id: string; count: number }[]> {
  return db
    .selectFrom('follows')
    .innerJoin('users', 'users.id', 'follows.follower_id')
    .select(['follows.followee_id as user_id', sql<number>`count(*)`.as('count')])
    .where('follows.followee_id', 'in', userIds)
    .where('users.active', '=', true)
    .groupBy('follows.followee_id')
    .execute();
}
