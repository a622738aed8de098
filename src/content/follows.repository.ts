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

/** The active followers of each of `userIds`, most recent follow first, tagged with whom they follow. */
export function followersOf(db: Executor, userIds: readonly string[]): Promise<(UsersRow & { of_user: string })[]> {
  return db
    .selectFrom('follows')
    .innerJoin('users', 'users.id', 'follows.follower_id')
    .selectAll('users')
    .select('follows.followee_id as of_user')
    .where('follows.followee_id', 'in', userIds)
    .where('users.active', '=', true)
    .orderBy('follows.created_at', 'desc')
    .orderBy('users.id')
    .execute();
}

/** The active users each of `userIds` follows, most recent follow first. */
export function followingOf(db: Executor, userIds: readonly string[]): Promise<(UsersRow & { of_user: string })[]> {
  return db
    .selectFrom('follows')
    .innerJoin('users', 'users.id', 'follows.followee_id')
    .selectAll('users')
    .select('follows.follower_id as of_user')
    .where('follows.follower_id', 'in', userIds)
    .where('users.active', '=', true)
    .orderBy('follows.created_at', 'desc')
    .orderBy('users.id')
    .execute();
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
