/**
 * One statement for a whole nested read of the content graph (the look-ahead planner,
 * src/content/planner/): a page of users, or one user, each with the nested pages of its posts (and
 * their authors, and theirs…) and its follower count, as correlated subqueries that PostgreSQL and
 * PGlite shape into JSON (`json_agg`, `to_json`), so the database answers in one round trip what the
 * loaders ask in one statement per level. The rules are the ones the loaders' queries apply, from
 * the same places: the users directory scope (users.repository.ts), post visibility
 * (post-visibility.ts), per-author pages newest first (posts.repository.ts `pagePostsByAuthors`),
 * active followers only (follows.repository.ts `followerCounts`).
 *
 * Nested subqueries name their tables as the loaders do (`users`, `posts`): SQL resolves a column
 * reference to the innermost FROM item of that name, which is always the enclosing row here, since
 * the levels alternate users → posts → users. The follower join is aliased so it cannot capture
 * `users.id`.
 */
import { sql, type AliasedRawBuilder, type ExpressionBuilder, type RawBuilder } from 'kysely';
import { jsonArrayFrom, jsonObjectFrom } from 'kysely/helpers/postgres';
import { tableColumns, type DB } from '../../generated/db/types.ts';
import type { Executor } from '../db/transaction.ts';
import { visibilityCondition, type PostVisibility } from './post-visibility.ts';
import { directory } from '../users/users.repository.ts';

/** One nested read of a row: the response key it answers and the column of the statement that carries it. */
export interface ReadKey {
  readonly key: string;
  readonly column: string;
}

/** What to read of each user besides its row: pages of its posts and its follower count, by response key. */
export interface UserReads {
  readonly posts: readonly PostsPageRead[];
  readonly followerCounts: readonly ReadKey[];
}

/** One `posts(page, size)` of a user: `content` is null when the page's posts themselves are not selected. */
export interface PostsPageRead extends ReadKey {
  readonly offset: number;
  readonly limit: number;
  readonly content: PostReads | null;
}

/** What to read of each post besides its row: its `content` column (large) only when selected, and its authors by response key. */
export interface PostReads {
  readonly content: boolean;
  readonly authors: readonly (ReadKey & { readonly user: UserReads })[];
}

/** Every column of `posts` but `content`, which a read selects only when asked (about 1 kB a post). */
const POST_COLUMNS_BUT_CONTENT = tableColumns.posts.filter((column) => column !== 'content');

/**
 * The column that carries the `index`th nested read of a row. Generated rather than derived from
 * the response key: an alias has no length limit, and PostgreSQL truncates identifiers at 63 bytes,
 * so two long aliases with a common beginning would name one column.
 */
export const readColumn = (index: number): string => `read_${index}`;

// The builders below nest subqueries of alternating tables; Kysely's types follow one scope at a
// time, so each level takes the builder of its own table.
type UsersScope = ExpressionBuilder<DB, 'users'>;
type PostsScope = ExpressionBuilder<DB, 'posts'>;

function userReads(eb: UsersScope, reads: UserReads, visibility: PostVisibility): AliasedRawBuilder<unknown, string>[] {
  const columns: AliasedRawBuilder<unknown, string>[] = [];
  for (const page of reads.posts) {
    const visible = visibilityCondition(visibility);
    const total = eb
      .selectFrom('posts')
      .select((e) => e.fn.countAll<number>().as('n'))
      .whereRef('posts.author_id', '=', 'users.id')
      .where(visible);
    const content: RawBuilder<unknown> = page.content
      ? sql`${jsonArrayFrom(
          eb
            .selectFrom('posts')
            .select(page.content.content ? tableColumns.posts : POST_COLUMNS_BUT_CONTENT)
            .select((e) => postReads(e as unknown as PostsScope, page.content!, visibility))
            .whereRef('posts.author_id', '=', 'users.id')
            .where(visible)
            .orderBy('posts.created_at', 'desc')
            .orderBy('posts.id', 'desc')
            .offset(page.offset)
            .limit(page.limit),
        )}`
      : sql`'[]'::json`;
    columns.push(sql`json_build_object('content', ${content}, 'total', (${total}))`.as(page.column));
  }
  for (const { column } of reads.followerCounts) {
    const count = eb
      .selectFrom('follows')
      .innerJoin('users as follower', 'follower.id', 'follows.follower_id')
      .select((e) => e.fn.countAll<number>().as('n'))
      .whereRef('follows.followee_id', '=', 'users.id')
      .where('follower.active', '=', true);
    columns.push(sql`(${count})`.as(column));
  }
  return columns;
}

function postReads(eb: PostsScope, reads: PostReads, visibility: PostVisibility): AliasedRawBuilder<unknown, string>[] {
  return reads.authors.map(({ column, user }) =>
    sql`${jsonObjectFrom(
      eb
        .selectFrom('users')
        .selectAll('users')
        .select((e) => userReads(e as unknown as UsersScope, user, visibility))
        .whereRef('users.id', '=', 'posts.author_id'),
    )}`.as(column),
  );
}

/** A page of the users directory (tenant scope as `listUsers`), each row with its nested reads and the directory's total. */
export function usersPageRead(
  db: Executor,
  tenantId: string | null,
  offset: number,
  limit: number,
  reads: UserReads,
  visibility: PostVisibility,
) {
  return directory(db, tenantId)
    .selectAll('users')
    .select(sql<string>`count(*) over ()`.as('total_count'))
    .select((eb) => userReads(eb, reads, visibility))
    .orderBy('created_at', 'asc')
    .orderBy('id', 'asc')
    .offset(offset)
    .limit(limit);
}

/** One user by id (deactivated ones too, as `findUserById`), with its nested reads. */
export function userRead(db: Executor, id: string, reads: UserReads, visibility: PostVisibility) {
  return db
    .selectFrom('users')
    .selectAll('users')
    .select((eb) => userReads(eb, reads, visibility))
    .where('id', '=', id);
}
