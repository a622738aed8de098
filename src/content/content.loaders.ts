/**
 * Per-request batchers for every parent-to-child lookup of the content graph. Each loader collapses
 * the lookups one execution level makes (N parents) into one IN-list statement, so a nested query
 * costs one statement per level whatever the number of parents. Create one set per request (or per
 * subscription event): the caches must not outlive the data they were read from.
 */
import DataLoader from 'dataloader';
import type { CommentsRow, PostsRow, TagsRow, UsersRow } from '../../generated/db/types.ts';
import type { Database } from '../db/database.ts';
import { pageOf, type Page } from '../paging.ts';
import * as comments from './comments.repository.ts';
import * as follows from '../users/follows.repository.ts';
import * as posts from './posts.repository.ts';
import * as tags from './tags.repository.ts';
import * as users from '../users/users.repository.ts';
import { readable, type Viewer } from './post-visibility.ts';

/** Groups rows by parent key, in each parent's order, with an empty list for parents without rows. */
function groupBy<K, T>(keys: readonly K[], rows: readonly T[], keyOf: (row: T) => K): T[][] {
  const groups = new Map<K, T[]>(keys.map((k) => [k, []]));
  for (const row of rows) groups.get(keyOf(row))?.push(row);
  return keys.map((k) => groups.get(k)!);
}

function countsBy<K, T extends { count: number }>(keys: readonly K[], rows: readonly T[], keyOf: (row: T) => K): number[] {
  const counts = new Map<K, number>();
  for (const row of rows) counts.set(keyOf(row), Number(row.count));
  return keys.map((k) => counts.get(k) ?? 0);
}

function byId<K, T extends { id: K }>(keys: readonly K[], rows: readonly T[]): (T | null)[] {
  const found = new Map(rows.map((r) => [r.id, r]));
  return keys.map((k) => found.get(k) ?? null);
}

/** Turns one statement's ranked rows into a page per parent (see pagePostsByAuthors). */
function pagesBy<K, T>(keys: readonly K[], rows: readonly posts.Ranked<T>[], keyOf: (row: T) => K, page: number, size: number): Page<T>[] {
  const offset = page * size;
  return groupBy(keys, rows, keyOf).map((group) => {
    const total = group.length ? Number(group[0]!.total) : 0;
    const items = group.filter((r) => r.rn > offset && r.rn <= offset + size).map(({ rn: _rn, total: _total, ...row }) => row as T);
    return pageOf(items, page, size, total);
  });
}

export class ContentLoaders {
  private readonly paged = new Map<string, DataLoader<never, never>>();

  constructor(
    private readonly db: Database,
    private readonly viewer: Viewer,
  ) {}

  readonly user = new DataLoader<string, UsersRow | null>(async (ids) => byId(ids, await users.findUsersByIds(this.db, ids)));

  /** Posts by id the viewer may read; null for the others, exactly as for a missing post. */
  readonly post = new DataLoader<number, PostsRow | null>(async (ids) =>
    byId(ids, await posts.findPostsByIds(this.db, ids, readable(this.viewer))),
  );

  readonly comment = new DataLoader<number, CommentsRow | null>(async (ids) => byId(ids, await comments.findCommentsByIds(this.db, ids)));

  readonly tags = new DataLoader<number, TagsRow[]>(async (ids) =>
    groupBy(ids, await tags.tagsOfPosts(this.db, ids), (r) => r.post_id).map((group) => group.map(({ id, name }) => ({ id, name }))),
  );

  readonly likeCount = new DataLoader<number, number>(async (ids) => countsBy(ids, await posts.likeCounts(this.db, ids), (r) => r.post_id));

  readonly tagPostCount = new DataLoader<number, number>(async (ids) =>
    countsBy(ids, await tags.postCounts(this.db, ids), (r) => r.tag_id),
  );

  readonly followerCount = new DataLoader<string, number>(async (ids) =>
    countsBy(ids, await follows.followerCounts(this.db, ids), (r) => r.user_id),
  );

  /** The first `limit` replies to each comment (`Comment.replies`); one loader per limit. */
  replies(limit: number): DataLoader<number, CommentsRow[]> {
    return this.pagedLoader(`replies:${limit}`, async (ids: readonly number[]) =>
      groupBy(ids, await comments.repliesTo(this.db, ids, limit), (r) => r.parent_id!).map((group) =>
        group.map(({ rn: _rn, ...comment }) => comment),
      ),
    );
  }

  /** Each user's `limit` most recent followers (`User.followers`); one loader per limit. */
  followers(limit: number): DataLoader<string, UsersRow[]> {
    return this.pagedLoader(`followers:${limit}`, async (ids: readonly string[]) =>
      groupBy(ids, await follows.followersOf(this.db, ids, limit), (r) => r.of_user).map(stripListing),
    );
  }

  /** The `limit` users each user followed most recently (`User.following`); one loader per limit. */
  following(limit: number): DataLoader<string, UsersRow[]> {
    return this.pagedLoader(`following:${limit}`, async (ids: readonly string[]) =>
      groupBy(ids, await follows.followingOf(this.db, ids, limit), (r) => r.of_user).map(stripListing),
    );
  }

  /** A page of each author's posts the viewer may read (`User.posts`); one loader per (page, size). */
  postsByAuthor(page: number, size: number): DataLoader<string, Page<PostsRow>> {
    return this.pagedLoader(`posts:${page}:${size}`, async (ids: readonly string[]) =>
      pagesBy(ids, await posts.pagePostsByAuthors(this.db, ids, readable(this.viewer), page * size, size), (r) => r.author_id, page, size),
    );
  }

  /** A page of each post's top-level comments; one loader per (page, size). */
  commentsByPost(page: number, size: number): DataLoader<number, Page<CommentsRow>> {
    return this.pagedLoader(`comments:${page}:${size}`, async (ids: readonly number[]) =>
      pagesBy(ids, await comments.pageTopLevelComments(this.db, ids, page * size, size), (r) => r.post_id, page, size),
    );
  }

  private pagedLoader<K, V>(key: string, batch: DataLoader.BatchLoadFn<K, V>): DataLoader<K, V> {
    let loader = this.paged.get(key) as DataLoader<K, V> | undefined;
    if (!loader) {
      loader = new DataLoader<K, V>(batch);
      this.paged.set(key, loader as unknown as DataLoader<never, never>);
    }
    return loader;
  }
}

function stripListing(rows: follows.ListedUser[]): UsersRow[] {
  return rows.map(({ of_user: _ofUser, rn: _rn, ...user }) => user);
}

/** What the services container offers transports: a fresh set of loaders per request. */
export class ContentLoaderFactory {
  constructor(private readonly db: Database) {}

  forRequest(viewer: Viewer): ContentLoaders {
    return new ContentLoaders(this.db, viewer);
  }
}
