import { sql } from 'kysely';
import type { CommentsRow, NewCommentsRow } from '../../generated/db/types.ts';
import type { Executor } from '../db/transaction.ts';
import type { Ranked } from './posts.repository.ts';

export function findCommentsByIds(db: Executor, ids: readonly number[]): Promise<CommentsRow[]> {
  return db.selectFrom('comments').selectAll().where('id', 'in', ids).execute();
}

export function insertComment(db: Executor, comment: NewCommentsRow): Promise<CommentsRow> {
  return db.insertInto('comments').values(comment).returningAll().executeTakeFirstOrThrow();
}

/** One page of top-level comments per post, oldest first, in one statement (see pagePostsByAuthors). */
export function pageTopLevelComments(
  db: Executor,
  postIds: readonly number[],
  offset: number,
  limit: number,
): Promise<Ranked<CommentsRow>[]> {
  const ranked = db
    .selectFrom('comments')
    .selectAll('comments')
    .select([
      sql<number>`row_number() over (partition by post_id order by created_at, id)`.as('rn'),
      sql<number>`count(*) over (partition by post_id)`.as('total'),
    ])
    .where('post_id', 'in', postIds)
    .where('parent_id', 'is', null);
  return db
    .selectFrom(ranked.as('t'))
    .selectAll()
    .where((eb) => eb.or([eb('rn', '=', 1), eb.and([eb('rn', '>', offset), eb('rn', '<=', offset + limit)])]))
    .orderBy('post_id')
    .orderBy('rn')
    .execute();
}

/** The `limit` oldest replies to each of `parentIds`, oldest first, in one statement (ranked per parent). */
export function repliesTo(db: Executor, parentIds: readonly number[], limit: number): Promise<(CommentsRow & { rn: number })[]> {
  const ranked = db
    .selectFrom('comments')
    .selectAll('comments')
    .select(sql<number>`row_number() over (partition by parent_id order by created_at, id)`.as('rn'))
    .where('parent_id', 'in', parentIds);
  return db.selectFrom(ranked.as('t')).selectAll().where('rn', '<=', limit).orderBy('parent_id').orderBy('rn').execute();
}
