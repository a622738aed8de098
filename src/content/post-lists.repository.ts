/**
 * Queries behind the post lists. Every list is ordered newest first by (created_at, id), the order
 * of the composite indexes posts_created_id_idx / posts_status_created_id_idx and (for a caller's
 * own drafts) posts_author_drafts_idx, so seek queries walk an index and stop after `limit` rows.
 *
 * Every helper takes the visibility to apply (a policy of post-visibility.ts, `listed` for these
 * lists), so no query can leave it out.
 */
import { sql, type Expression, type SqlBool } from 'kysely';
import type { Executor } from '../db/transaction.ts';
import { branchCondition, visibilityCondition, type PostVisibility } from './post-visibility.ts';

export interface PostListRow {
  id: number;
  title: string;
  slug: string;
  status: string;
  author_id: string;
  created_at: Date;
  updated_at: Date;
  /**
   * created_at as exact UTC text with microseconds. Both drivers parse timestamptz into a JS Date,
   * which keeps milliseconds only; a cursor built from that could skip posts created within the same
   * millisecond, so positions carry this text instead.
   */
  created_at_exact: string;
}

/** A point in the (created_at, id) order. `id` null means "just before this instant". */
export interface SeekBound {
  /** Timestamp text PostgreSQL parses exactly (e.g. `2024-05-01T12:00:00.123456Z`). */
  createdAt: string;
  id: number | null;
}

export type SeekDirection = 'older' | 'newer';

export interface SeekQuery {
  visibility: PostVisibility;
  direction: SeekDirection;
  /** Null: start at the newest (older) or oldest (newer) end. */
  from: SeekBound | null;
  limit: number;
}

const EXACT_CREATED_AT = sql<string>`to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

function selectPosts(db: Executor) {
  return db
    .selectFrom('posts')
    .select(['id', 'title', 'slug', 'status', 'author_id', 'created_at', 'updated_at', EXACT_CREATED_AT.as('created_at_exact')]);
}

/**
 * A row-value comparison, which PostgreSQL turns into one index condition on (created_at, id):
 * `(created_at, id) < ($1, $2)` rather than `created_at < $1 or (created_at = $1 and id < $2)`.
 */
function seekPredicate(direction: SeekDirection, from: SeekBound): Expression<SqlBool> {
  const op = sql.raw(direction === 'older' ? '<' : '>');
  const at = sql`cast(${from.createdAt} as timestamptz)`;
  if (from.id === null) return sql<SqlBool>`created_at ${op} ${at}`;
  return sql<SqlBool>`(created_at, id) ${op} (${at}, ${from.id})`;
}

/**
 * One seek page (plus one row, so the caller learns whether more exist). The policy's disjoint
 * branches (for a signed-in caller: published posts, own drafts) are each ordered and limited, then
 * merged: PostgreSQL plans this as a Merge Append of one index scan per branch, with no Sort and no
 * OFFSET, where an `OR` of the two would make the index scan filter every other author's drafts. Rows come in scan order: newest first for
 * `older`, oldest first for `newer`.
 */
export function buildSeekQuery(db: Executor, { visibility, direction, from, limit }: SeekQuery) {
  const order = direction === 'older' ? 'desc' : 'asc';
  const branches = visibility.map((branch) => {
    let q = selectPosts(db).where(branchCondition(branch));
    if (from) q = q.where(seekPredicate(direction, from));
    return q.orderBy('created_at', order).orderBy('id', order).limit(limit);
  });
  const [first, ...rest] = branches;
  if (!first) throw new Error('a visibility policy has at least one branch');
  if (!rest.length) return first;
  // Kysely does not parenthesise ordered set-operation operands; derived tables keep each LIMIT local.
  const union = rest.reduce(
    (acc, branch, i) => acc.unionAll(db.selectFrom(branch.as(`b${i + 1}`)).selectAll()),
    db.selectFrom(first.as('b0')).selectAll(),
  );
  return db.selectFrom(union.as('visible')).selectAll().orderBy('created_at', order).orderBy('id', order).limit(limit);
}

export function seekPosts(db: Executor, query: SeekQuery): Promise<PostListRow[]> {
  return buildSeekQuery(db, query).execute();
}

/** Whether any visible post lies beyond `from` in `direction` (one index probe). */
export async function existsBeyond(db: Executor, visibility: PostVisibility, direction: SeekDirection, from: SeekBound): Promise<boolean> {
  const rows = await buildSeekQuery(db, { visibility, direction, from, limit: 1 }).execute();
  return rows.length > 0;
}

/** The offset form: OFFSET is what this form is about; its cost grows with `offset`. */
export function offsetPosts(db: Executor, visibility: PostVisibility, offset: number, limit: number): Promise<PostListRow[]> {
  return selectPosts(db)
    .where(visibilityCondition(visibility))
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .offset(offset)
    .limit(limit)
    .execute();
}

export async function countPosts(db: Executor, visibility: PostVisibility): Promise<number> {
  const { total } = await db
    .selectFrom('posts')
    .select((eb) => eb.fn.countAll<number>().as('total'))
    .where(visibilityCondition(visibility))
    .executeTakeFirstOrThrow();
  return Number(total);
}
