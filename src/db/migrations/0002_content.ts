import { sql, type Kysely } from 'kysely';

/**
 * Content: posts (integer ids, since the keyset convention pages on `id_before`), comments with
 * replies, tags, follows and likes. Likes and follows are rows, not counters, so they are idempotent
 * and counted in SQL.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('posts')
    .addColumn('id', 'integer', (c) => c.primaryKey().generatedByDefaultAsIdentity())
    .addColumn('author_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('content', 'text', (c) => c.notNull())
    .addColumn('slug', 'text', (c) => c.notNull().unique())
    .addColumn('status', 'text', (c) =>
      c
        .notNull()
        .defaultTo('DRAFT')
        .check(sql`status in ('DRAFT', 'PUBLISHED', 'ARCHIVED')`),
    )
    .addColumn('view_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('published_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  // Newest-first lists (cursor, keyset, feed) walk these indexes instead of sorting.
  await sql`create index posts_created_id_idx on posts (created_at desc, id desc)`.execute(db);
  await sql`create index posts_status_created_id_idx on posts (status, created_at desc, id desc)`.execute(db);
  await sql`create index posts_author_created_id_idx on posts (author_id, created_at desc, id desc)`.execute(db);

  await db.schema
    .createTable('comments')
    .addColumn('id', 'integer', (c) => c.primaryKey().generatedByDefaultAsIdentity())
    .addColumn('post_id', 'integer', (c) => c.notNull().references('posts.id').onDelete('cascade'))
    .addColumn('author_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('parent_id', 'integer', (c) => c.references('comments.id').onDelete('cascade'))
    .addColumn('content', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await sql`create index comments_post_created_idx on comments (post_id, created_at, id)`.execute(db);
  await sql`create index comments_parent_idx on comments (parent_id, created_at, id) where parent_id is not null`.execute(db);
  await sql`create index comments_author_idx on comments (author_id)`.execute(db);

  await db.schema
    .createTable('tags')
    .addColumn('id', 'integer', (c) => c.primaryKey().generatedByDefaultAsIdentity())
    .addColumn('name', 'text', (c) => c.notNull().unique())
    .execute();

  await db.schema
    .createTable('post_tags')
    .addColumn('post_id', 'integer', (c) => c.notNull().references('posts.id').onDelete('cascade'))
    .addColumn('tag_id', 'integer', (c) => c.notNull().references('tags.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('post_tags_pk', ['post_id', 'tag_id'])
    .execute();
  await sql`create index post_tags_tag_idx on post_tags (tag_id)`.execute(db);

  await db.schema
    .createTable('follows')
    .addColumn('follower_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('followee_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('follows_pk', ['follower_id', 'followee_id'])
    .addCheckConstraint('follows_not_self', sql`follower_id <> followee_id`)
    .execute();
  await sql`create index follows_followee_idx on follows (followee_id, follower_id)`.execute(db);

  await db.schema
    .createTable('post_likes')
    .addColumn('post_id', 'integer', (c) => c.notNull().references('posts.id').onDelete('cascade'))
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('post_likes_pk', ['post_id', 'user_id'])
    .execute();
  await sql`create index post_likes_user_idx on post_likes (user_id)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['post_likes', 'follows', 'post_tags', 'tags', 'comments', 'posts']) {
    await db.schema.dropTable(table).execute();
  }
}
