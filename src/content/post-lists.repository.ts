/**
 * Queries behind the post lists. Every list is ordered newest first by (created_at, id), the order
 * of the composite indexes posts_created_id_idx / posts_status_created_id_idx and (for a caller's
 * own drafts) posts_author_drafts_idx, so seek queries walk an index and stop after `limit` rows.
 *
 * Visibility is built into the query helpers, so no caller can forget it: anonymous callers see
 * PUBLISHED posts; a signed-in caller also sees their own DRAFTs.
 */
import { sql, type Expression, type SqlBool } from 'kysely';
import type { Executor } from '../db/transaction.ts';

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
  viewerId: string | null;
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

type Branch = (query: ReturnType<typeof selectPosts>) => ReturnType<typeof selectPosts>;

/** The visible posts as disjoint branches, each of which can walk an index in (created_at, id) order. */
function visibilityBranches(viewerId: string | null): Branch[] {
  const published: Branch = (q) => q.where('status', '=', 'PUBLISHED');
  if (viewerId === null) return [published];
  return [published, (q) => q.where('author_id', '=', viewerId).where('status', '=', 'DRAFT')];
}

/**
 * One seek page (plus one row, so the caller learns whether more exist). For a signed-in caller
 * the two visibility branches are each ordered and limited, then merged: PostgreSQL plans this as a
 * Merge Append of two index scans, with no Sort and no OFFSET, where an `OR` of the two would make
 * the index scan filter every other author's drafts. Rows come in scan order: newest first for
 * `older`, oldest first for `newer`.
 */
export function buildSeekQuery(db: Executor, { viewerId, direction, from, limit }: SeekQuery) {
  const order = direction === 'older' ? 'desc' : 'asc';
  const branches = visibilityBranches(viewerId).map((branch) => {
    let q = branch(selectPosts(db));
    if (from) q = q.where(seekPredicate(direction, from));
    return q.orderBy('created_at', order).orderBy('id', order).limit(limit);
  });
  const [first, ...rest] = branches;
  if (!first) throw new Error('visibilityBranches returned no branch');
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
export async function existsBeyond(db: Executor, viewerId: string | null, direction: SeekDirection, from: SeekBound): Promise<boolean> {
  const rows = await buildSeekQuery(db, { viewerId, direction, from, limit: 1 }).execute();
  return rows.length > 0;
}

function visibleFilter(viewerId: string | null): Expression<SqlBool> {
  if (viewerId === null) return sql<SqlBool>`status = 'PUBLISHED'`;
  return sql<SqlBool>`(status = 'PUBLISHED' or (status = 'DRAFT' and author_id = ${viewerId}))`;
}

/** The offset form: OFFSET is what this form is about; its cost grows with `offset`. */
export function offsetPosts(db: Executor, viewerId: string | null, offset: number, limit: number): Promise<PostListRow[]> {
  return selectPosts(db)
    .where(visibleFilter(viewerId))
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .offset(offset)
    .limit(limit)
    .execute();
}

export async function countVisiblePosts(db: Executor, viewerId: string | null): Promise<number> {
  const { total } = await db
    .selectFrom('posts')
    .select((eb) => eb.fn.countAll<number>().as('total'))
    .where(visibleFilter(viewerId))
    .executeTakeFirstOrThrow();
  return Number(total);
}
