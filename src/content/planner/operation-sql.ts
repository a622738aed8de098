/**
 * The one statement that answers a whole covered operation (operation-shape.ts): PostgreSQL builds
 * the response's `data` as JSON text, concatenated in selection order and as compact as
 * JSON.stringify writes it (`to_json` escapes each value, `string_agg` joins list items),
 * with GraphQL's own formats (integer ids as text, timestamps as `toISOString` writes them), so the
 * server sends it as it comes. The rules are the loaders' own, from the same places: the directory
 * scope (users.repository.ts `directory`), post visibility (post-visibility.ts), per-author pages
 * newest first, active followers only, every like counted.
 *
 * The statement is built once per operation and viewer kind (the tenant scope or none, the
 * visibility's branches) with `Slot`s where per-request values go (the tenant, the viewer's id, the
 * arguments), so its text never changes with the values and PostgreSQL can keep it prepared.
 *
 * Each nesting level has its own alias (`u1`, `p2`, …): a correlated reference always names the
 * level it means. The posts subqueries keep the name `posts` inside, as the visibility condition
 * names it.
 */
import { sql, type Expression, type RawBuilder } from 'kysely';
import type { PostsRow } from '../../../generated/db/types.ts';
import type { Database } from '../../db/database.ts';
import { visibilityCondition, type PostVisibility } from '../post-visibility.ts';
import { CONTENT_EVENTS_CHANNEL } from '../content.events.ts';
import { queueDeliveries } from '../../webhooks/outbox.repository.ts';
import { directory, searchUsersQuery } from '../../users/users.repository.ts';
import type {
  ArgumentsOf,
  Column,
  CommentShape,
  ConnectionShape,
  Entry,
  OperationShape,
  PostShape,
  RootValue,
  TagShape,
  UserShape,
} from './operation-shape.ts';

/** A per-request value's place in the statement; `compile()` lists it among the parameters. */
export class Slot {
  constructor(readonly name: string) {}
}

export const slots = {
  tenant: new Slot('tenant'),
  viewer: new Slot('viewer'),
};
/** The per-request values of one field with arguments: its page, size and offset, or its id. */
const argumentSlot = (
  args: ArgumentsOf,
  name: 'page' | 'size' | 'offset' | 'id' | 'query' | 'limit' | 'content' | 'displayName' | 'bio' | 'avatarUrl',
) => new Slot(`${name}:${args.index}`);

const ISO_8601 = `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`;

type Sql = RawBuilder<unknown>;

/** A constant piece of the JSON text (a key, a type name) as an SQL string literal. */
const text = (json: string): Sql => sql.lit(json);
/** A value as JSON text; `null` for SQL NULL (a concatenation with NULL would be NULL whole). */
const json = (value: Sql): Sql => sql`coalesce(to_json(${value})::text, 'null')`;

class StatementBuilder {
  private aliases = 0;
  /** Common table expressions the statement starts with (the counted read of `post(id)`). */
  readonly ctes: Sql[] = [];

  constructor(
    private readonly db: Database,
    private readonly visibility: PostVisibility,
    private readonly tenant: Slot | null,
  ) {}

  private alias(prefix: 'u' | 'p' | 'c' | 't' | 'm' | 'r'): string {
    this.aliases += 1;
    return `${prefix}${this.aliases}`;
  }

  /** `{"key":value,…}` in selection order, written as compactly as JSON.stringify writes it. */
  private object<V>(entries: readonly Entry<V>[], value: (v: V) => Sql): Sql {
    const parts = entries.map(([key, v], i) => sql`${text(`${i ? ',' : '{'}${JSON.stringify(key)}:`)} || ${value(v)}`);
    return sql`(${sql.join(parts, sql` || `)} || '}')`;
  }

  private column(alias: string, { column, format }: Column): Sql {
    const ref = sql.ref(`${alias}.${column}`);
    if (format === 'text') return json(sql`${ref}::text`);
    if (format === 'timestamp') return json(sql`to_char(${ref} at time zone 'UTC', ${sql.raw(ISO_8601)})`);
    return json(ref);
  }

  /**
   * `[item,…]` of the rows of `from` in `order`; without one, in the order `from` (an ordered
   * subquery) gives them, which PostgreSQL keeps through an aggregate over it.
   */
  private array(item: Sql, from: Sql, order: Sql | null): Sql {
    const aggregated = order ? sql`string_agg(${item}, ',' order by ${order})` : sql`string_agg(${item}, ',')`;
    return sql`(select '[' || coalesce(${aggregated}, '') || ']' from ${from})`;
  }

  /** The author of a post or comment (deactivated ones too, as the `user` loader reads them). */
  private author(shape: UserShape, ref: Sql): Sql {
    const u = this.alias('u');
    return sql`coalesce((select ${this.user(shape, u)} from users as ${sql.raw(u)} where ${sql.ref(`${u}.id`)} = ${ref}), 'null')`;
  }

  /** A connection: its counts from one `count(*)` (only when selected), its content from `items`. */
  private connection<Item>(shape: ConnectionShape<Item>, args: ArgumentsOf, count: Expression<unknown>, items: (item: Item) => Sql): Sql {
    // bigint: `page + 1` overflows int for the largest page the schema admits (2^31 - 1).
    const page = sql`${argumentSlot(args, 'page')}::bigint`;
    const size = sql`${argumentSlot(args, 'size')}::int`;
    const c = this.alias('c');
    const total = sql.ref(`${c}.n`);
    const totalPages = sql`ceil(${total}::numeric / ${size})::int`;
    const built = this.object(shape, (value): Sql => {
      switch (value.kind) {
        case 'typename':
          return text(JSON.stringify(value.name));
        case 'content':
          return items(value.item);
        case 'totalElements':
          return sql`${total}::text`;
        case 'totalPages':
          return sql`${totalPages}::text`;
        case 'hasNext':
          return sql`(case when ${page} + 1 < ${totalPages} then 'true' else 'false' end)`;
      }
    });
    const counted = shape.some(([, value]) => value.kind === 'totalElements' || value.kind === 'totalPages' || value.kind === 'hasNext');
    return counted ? sql`(select ${built} from (${count}) as ${sql.raw(c)})` : built;
  }

  user(shape: UserShape, u: string): Sql {
    return this.object(shape, (value): Sql => {
      switch (value.kind) {
        case 'typename':
          return text(JSON.stringify(value.name));
        case 'column':
          return this.column(u, value);
        case 'followerCount':
          return sql`(${this.db
            .selectFrom('follows')
            .innerJoin('users as follower', 'follower.id', 'follows.follower_id')
            .select(sql<number>`count(*)`.as('n'))
            .where(sql<boolean>`follows.followee_id = ${sql.ref(`${u}.id`)}`)
            .where('follower.active', '=', true)})::text`;
        case 'posts':
          return this.posts(value.connection, value.args, u);
      }
    });
  }

  private posts(shape: ConnectionShape<PostShape>, args: ArgumentsOf, u: string): Sql {
    const ofAuthor = () =>
      this.db
        .selectFrom('posts')
        .where(sql<boolean>`posts.author_id = ${sql.ref(`${u}.id`)}`)
        .where(visibilityCondition(this.visibility));
    const count = ofAuthor().select(sql<number>`count(*)`.as('n'));
    return this.connection(shape, args, count, (item) => {
      const p = this.alias('p');
      const page = ofAuthor()
        .select(postColumns(item).map((column) => `posts.${column}` as const))
        .orderBy('posts.created_at', 'desc')
        .orderBy('posts.id', 'desc')
        .offset(sql<number>`${argumentSlot(args, 'offset')}`)
        .limit(sql<number>`${argumentSlot(args, 'size')}`);
      const order = sql`${sql.ref(`${p}.created_at`)} desc, ${sql.ref(`${p}.id`)} desc`;
      return this.array(this.post(item, p), sql`(${page}) as ${sql.raw(p)}`, order);
    });
  }

  /** A post; `likesAdded`: a count of likes this statement inserted, which its snapshot does not see. */
  post(shape: PostShape, p: string, likesAdded?: Sql): Sql {
    return this.object(shape, (value): Sql => {
      switch (value.kind) {
        case 'typename':
          return text(JSON.stringify(value.name));
        case 'column':
          return this.column(p, value);
        case 'likeCount': {
          const counted = sql`(select count(*) from post_likes where post_likes.post_id = ${sql.ref(`${p}.id`)})`;
          return likesAdded ? sql`(${counted} + ${likesAdded})::text` : sql`${counted}::text`;
        }
        case 'author':
          return this.author(value.user, sql.ref(`${p}.author_id`));
        case 'tags':
          return this.tags(value.tag, p);
        case 'comments':
          return this.comments(value.connection, value.args, p);
      }
    });
  }

  /** A post's tags in their position order (tags.repository.ts `tagsOfPosts`). */
  private tags(shape: TagShape, p: string): Sql {
    const t = this.alias('t');
    const item = this.object(shape, (value): Sql => {
      switch (value.kind) {
        case 'typename':
          return text(JSON.stringify(value.name));
        case 'column':
          return this.column(t, value);
        case 'postCount':
          return sql`(select count(*) from post_tags as counted where counted.tag_id = ${sql.ref(`${t}.id`)})::text`;
      }
    });
    const from = sql`post_tags as tagged join tags as ${sql.raw(t)} on ${sql.ref(`${t}.id`)} = tagged.tag_id where tagged.post_id = ${sql.ref(`${p}.id`)}`;
    return this.array(item, from, sql`tagged.position`);
  }

  /** A post's top-level comments, oldest first (comments.repository.ts `pageTopLevelComments`). */
  private comments(shape: ConnectionShape<CommentShape>, args: ArgumentsOf, p: string): Sql {
    const topLevel = () =>
      this.db
        .selectFrom('comments')
        .where(sql<boolean>`comments.post_id = ${sql.ref(`${p}.id`)}`)
        .where('comments.parent_id', 'is', null);
    const count = topLevel().select(sql<number>`count(*)`.as('n'));
    return this.connection(shape, args, count, (item) => {
      const m = this.alias('m');
      const page = topLevel()
        .selectAll('comments')
        .orderBy('comments.created_at', 'asc')
        .orderBy('comments.id', 'asc')
        .offset(sql<number>`${argumentSlot(args, 'offset')}`)
        .limit(sql<number>`${argumentSlot(args, 'size')}`);
      return this.array(this.comment(item, m), sql`(${page}) as ${sql.raw(m)}`, sql`${sql.ref(`${m}.created_at`)}, ${sql.ref(`${m}.id`)}`);
    });
  }

  private comment(shape: CommentShape, m: string): Sql {
    return this.object(shape, (value): Sql => {
      switch (value.kind) {
        case 'typename':
          return text(JSON.stringify(value.name));
        case 'column':
          return this.column(m, value);
        case 'author':
          return this.author(value.user, sql.ref(`${m}.author_id`));
        case 'post': {
          // The post commented on: readable (the insert required it), so never null.
          const p = this.alias('p');
          return sql`(select ${this.post(value.post, p)} from posts as ${sql.raw(p)} where ${sql.ref(`${p}.id`)} = ${sql.ref(`${m}.post_id`)})`;
        }
      }
    });
  }

  /**
   * `addComment(postId, content)` as comments.service.ts `add` does it, in common table expressions:
   * the insert only when the post is readable by the viewer and not ARCHIVED and the viewer is a
   * user (the service's checks), and the `commentAdded` NOTIFY of content.events.ts for the row it
   * inserted, delivered when the statement commits. Nothing inserted: the resolvers run and give
   * the error (POST_NOT_FOUND, POST_ARCHIVED, USER_NOT_FOUND), having nothing to undo.
   * `replyToComment(commentId, content)` (`reply`) is the same insert from the parent comment and
   * its post, with the parent's id (COMMENT_NOT_FOUND when there is no parent or its post is not
   * readable).
   */
  addedComment(shape: CommentShape, args: ArgumentsOf, reply: boolean): { data: Sql; found: Sql } {
    const r = this.alias('r');
    const n = this.alias('r');
    const viewer = sql`${slots.viewer}::text`;
    const id = argumentSlot(args, 'id') as unknown as number;
    // A reply: the parent's post, when there is such a comment (then the parent's id is the reply's parent_id).
    const post = reply ? sql<number>`(select parent.post_id from comments as parent where parent.id = ${id})` : id;
    const from = this.db
      .selectFrom('posts')
      .select([
        'posts.id',
        sql<string>`${viewer}`.as('author_id'),
        (reply ? sql<number | null>`${id}::integer` : sql<number | null>`null::integer`).as('parent_id'),
        sql<string>`${argumentSlot(args, 'content')}::text`.as('content'),
      ])
      .where('posts.id', '=', post)
      .where(visibilityCondition(this.visibility))
      .where('posts.status', '<>', 'ARCHIVED')
      .where(sql<boolean>`exists (select 1 from users where users.id = ${viewer})`);
    const insert = this.db.insertInto('comments').columns(['post_id', 'author_id', 'parent_id', 'content']).expression(from).returningAll();
    this.ctes.push(sql`${sql.raw(r)} as (${insert})`);
    // The payload JSON.stringify writes for the event (content.events.ts `publishContentEvent`).
    const payload = sql`'{"type":"commentAdded","commentId":' || ${sql.ref(`${r}.id`)} || ',"postId":' || ${sql.ref(`${r}.post_id`)} || '}'`;
    this.ctes.push(sql`${sql.raw(n)} as (select pg_notify(${CONTENT_EVENTS_CHANNEL}, ${payload}) from ${sql.raw(r)})`);
    const m = this.alias('m');
    return {
      data: sql`coalesce((select ${this.comment(shape, m)} from ${sql.raw(r)} as ${sql.raw(m)}), 'null')`,
      // Counting the NOTIFY's rows is what makes PostgreSQL run it (an unreferenced CTE that does not write is skipped).
      found: sql`(select count(*) from ${sql.raw(n)}) = 1`,
    };
  }

  /** The operation's `data` object. */
  root(entries: readonly Entry<RootValue>[], value: (v: RootValue) => Sql): Sql {
    return this.object(entries, value);
  }

  /** `users(page, size)`: a page of the directory in its order, and its total when a count is selected. */
  users(shape: ConnectionShape<UserShape>, args: ArgumentsOf): Sql {
    const scope = () => directory(this.db, this.tenant as unknown as string | null);
    const count = scope().select(sql<number>`count(*)`.as('n'));
    return this.connection(shape, args, count, (item) => {
      const u = this.alias('u');
      const page = scope()
        .selectAll('users')
        .orderBy('created_at', 'asc')
        .orderBy('id', 'asc')
        .offset(sql<number>`${argumentSlot(args, 'offset')}`)
        .limit(sql<number>`${argumentSlot(args, 'size')}`);
      const order = sql`${sql.ref(`${u}.created_at`)}, ${sql.ref(`${u}.id`)}`;
      return this.array(this.user(item, u), sql`(${page}) as ${sql.raw(u)}`, order);
    });
  }

  /** `searchUsers(query, limit)`: the directory's matches in the search's ranking (users.repository.ts). */
  searchUsers(shape: UserShape, args: ArgumentsOf): Sql {
    const u = this.alias('u');
    const query = argumentSlot(args, 'query') as unknown as string;
    const limit = argumentSlot(args, 'limit') as unknown as number;
    const matches = searchUsersQuery(this.db, this.tenant as unknown as string | null, query, limit);
    return this.array(this.user(shape, u), sql`(${matches}) as ${sql.raw(u)}`, null);
  }

  /**
   * `post(id)`: one counted read (posts.repository.ts `readPost`), the update a common table
   * expression of the statement, so the post comes back with the view it counted; null when absent
   * or not readable (then nothing was written and the resolvers report POST_NOT_FOUND).
   */
  countedPost(shape: PostShape, args: ArgumentsOf): { data: Sql; found: Sql } {
    const r = this.alias('r');
    const read = this.db
      .updateTable('posts')
      .set({ view_count: sql`view_count + 1` })
      .where('id', '=', argumentSlot(args, 'id') as unknown as number)
      .where(visibilityCondition(this.visibility))
      .returningAll();
    this.ctes.push(sql`${sql.raw(r)} as (${read})`);
    const p = this.alias('p');
    return {
      data: sql`coalesce((select ${this.post(shape, p)} from ${sql.raw(r)} as ${sql.raw(p)}), 'null')`,
      found: sql`exists (select 1 from ${sql.raw(r)})`,
    };
  }

  /**
   * `likePost(postId)` as posts.service.ts `like` does it: the post readable by the viewer (any
   * status: likes are reactions), the viewer a user, then the like inserted unless it is there
   * already. The answer's `likeCount` adds the row inserted, if any, to the snapshot's count.
   * No readable post or no user: nothing inserted, and the resolvers give the error.
   */
  likedPost(shape: PostShape, args: ArgumentsOf): { data: Sql; found: Sql } {
    const r = this.alias('r');
    const l = this.alias('r');
    const viewer = sql`${slots.viewer}::text`;
    const post = this.db
      .selectFrom('posts')
      .selectAll()
      .where('posts.id', '=', argumentSlot(args, 'id') as unknown as number)
      .where(visibilityCondition(this.visibility));
    const user = sql`exists (select 1 from users where users.id = ${viewer})`;
    this.ctes.push(sql`${sql.raw(r)} as (${post})`);
    this.ctes.push(
      sql`${sql.raw(l)} as (insert into post_likes (post_id, user_id) select ${sql.ref(`${r}.id`)}, ${viewer} from ${sql.raw(r)} where ${user} on conflict do nothing returning post_id)`,
    );
    const p = this.alias('p');
    return {
      data: sql`coalesce((select ${this.post(shape, p, sql`(select count(*) from ${sql.raw(l)})`)} from ${sql.raw(r)} as ${sql.raw(p)}), 'null')`,
      found: sql`exists (select 1 from ${sql.raw(r)}) and ${user}`,
    };
  }

  /**
   * `updateUser(id, input)` as users.service.ts `update` does it (the id is the viewer's: the plan
   * checked it, the service's FORBIDDEN otherwise): the viewer's row locked and read as it was, then
   * changed unless every field is null (null: unchanged; an empty bio: cleared; a display name
   * given: no longer derived), with its version moved and `updated_at` now (users.repository.ts
   * `updateUser`). Its `user.updated` webhook event when the display name changed (the one field of
   * the directory's user it may change: user-events.ts `recordUserChanged`), recorded and fanned out
   * as outbox.repository.ts `recordEvent` does. No such user: nothing written, USER_NOT_FOUND from
   * the resolvers.
   */
  updatedUser(shape: UserShape, args: ArgumentsOf): { data: Sql; found: Sql } {
    const [b, u, e, q] = [this.alias('r'), this.alias('r'), this.alias('r'), this.alias('r')];
    const [before, after, event] = [sql.raw(b), sql.raw(u), sql.raw(e)];
    const viewer = sql`${slots.viewer}::text`;
    const displayName = sql`${argumentSlot(args, 'displayName')}::text`;
    const bio = sql`${argumentSlot(args, 'bio')}::text`;
    const avatarUrl = sql`${argumentSlot(args, 'avatarUrl')}::text`;
    this.ctes.push(sql`${before} as (select * from users where users.id = ${viewer} for update)`);
    this.ctes.push(sql`${after} as (update users set
      display_name = coalesce(${displayName}, users.display_name),
      bio = case when ${bio} is null then users.bio else nullif(${bio}, '') end,
      avatar_url = coalesce(${avatarUrl}, users.avatar_url),
      display_name_derived = (${displayName} is null and users.display_name_derived),
      version = users.version + 1,
      updated_at = now()
      from ${before} where users.id = ${before}.id and (${displayName} is not null or ${bio} is not null or ${avatarUrl} is not null)
      returning users.*)`);
    const iso = (column: string) => sql`to_char(${sql.ref(`a.${column}`)} at time zone 'UTC', ${sql.raw(ISO_8601)})`;
    // user-events.ts `toDirectoryUser` of the changed row (jsonb keeps no key order, as `recordEvent`'s `::jsonb`).
    const object = sql`jsonb_build_object('id', a.id, 'tenantId', a.tenant_id, 'username', a.username, 'email', a.email,
      'displayName', a.display_name, 'givenName', a.given_name, 'familyName', a.family_name, 'department', a.department,
      'externalId', a.external_id, 'active', a.active, 'source', a.source, 'version', a.version,
      'createdAt', ${iso('created_at')}, 'updatedAt', ${iso('updated_at')})`;
    this.ctes
      .push(sql`${event} as (insert into webhook_events (type, resource_type, resource_id, sequence, object, previous_attributes, resource_path, tenant_id)
      select 'user.updated', 'user', a.id, a.version, ${object}, jsonb_build_object('displayName', o.display_name), '/scim/v2/Users/' || a.id, a.tenant_id
      from ${after} as a join ${before} as o on o.id = a.id
      where a.display_name is distinct from o.display_name
      returning id, position, resource_id, tenant_id)`);
    this.ctes.push(
      sql`${sql.raw(q)} as (${queueDeliveries(event, sql`'user.updated'`, sql`'user:' || ${event}.resource_id`, sql`${event}.tenant_id`)})`,
    );
    const x = this.alias('u');
    const answered = sql`(select * from ${after} union all select * from ${before} where not exists (select 1 from ${after}))`;
    return {
      data: sql`coalesce((select ${this.user(shape, x)} from ${answered} as ${sql.raw(x)}), 'null')`,
      found: sql`exists (select 1 from ${before})`,
    };
  }

  /** `user(id)`: the user (deactivated ones too, as `findUserById`), null when there is none. */
  oneUser(shape: UserShape, args: ArgumentsOf): Sql {
    const u = this.alias('u');
    return sql`coalesce((select ${this.user(shape, u)} from users as ${sql.raw(u)} where ${sql.ref(`${u}.id`)} = ${argumentSlot(args, 'id')}), 'null')`;
  }
}

/** The columns a post's object reads: its id and order always, its author's id when the author is selected. */
function postColumns(shape: PostShape): (keyof PostsRow)[] {
  const columns = new Set<keyof PostsRow>(['id', 'created_at']);
  for (const [, value] of shape) {
    if (value.kind === 'column') columns.add(value.column as keyof PostsRow);
    if (value.kind === 'author') columns.add('author_id');
  }
  return [...columns];
}

/**
 * `select <data as JSON text> as data, <whether every user(id) found its user> as complete`: an
 * operation whose `user(id)` names nobody gets its USER_NOT_FOUND from the resolver path instead.
 */
export function operationStatement(db: Database, shape: OperationShape, visibility: PostVisibility, tenant: Slot | null) {
  const builder = new StatementBuilder(db, visibility, tenant);
  const found: Sql[] = [];
  const data = builder.root(shape.roots, (value): Sql => {
    if (value.kind === 'typename') return text(JSON.stringify(value.name));
    if (value.kind === 'users') return builder.users(value.connection, value.args);
    if (value.kind === 'searchUsers') return builder.searchUsers(value.user, value.args);
    if (value.kind === 'post' || value.kind === 'addComment' || value.kind === 'replyToComment' || value.kind === 'likePost') {
      const written =
        value.kind === 'post'
          ? builder.countedPost(value.post, value.args)
          : value.kind === 'likePost'
            ? builder.likedPost(value.post, value.args)
            : builder.addedComment(value.comment, value.args, value.kind === 'replyToComment');
      found.push(written.found);
      return written.data;
    }
    if (value.kind === 'updateUser') {
      const written = builder.updatedUser(value.user, value.args);
      found.push(written.found);
      return written.data;
    }
    found.push(sql`exists (select 1 from users where users.id = ${argumentSlot(value.args, 'id')})`);
    return builder.oneUser(value.user, value.args);
  });
  const complete = found.length ? sql.join(found, sql` and `) : sql`true`;
  const ctes = builder.ctes.length ? sql`with ${sql.join(builder.ctes, sql`, `)} ` : sql``;
  return sql<{ data: string; complete: boolean }>`${ctes}select ${data} as data, ${complete} as complete`;
}
