/**
 * Lists of posts in the pagination conventions: offset pages, seek pages (newest first, strictly
 * after a position; the cursor, keyset and standard forms are all this one query) and the
 * bidirectional feed. Every list holds the posts the `listed` policy gives the viewer. Knows nothing of HTTP or cursor encoding: positions go in and come out as
 * values, and each transport encodes them its own way.
 */
import { validationFailed } from '../errors.ts';
import type { Database } from '../db/database.ts';
import { countPosts, existsBeyond, offsetPosts, seekPosts, type PostListRow, type SeekBound } from './post-lists.repository.ts';
import { toPostStatus, type PostStatus } from './post-status.ts';
import { listed, type Viewer } from './post-visibility.ts';

export const DEFAULT_PAGE_SIZE = 20;
const MAX_PAGE_SIZE = 100;

/** A post's place in the newest-first order. Both values, so ties on created_at cannot skip posts. */
export interface PostPosition {
  /** Exact UTC timestamp text with microseconds. */
  createdAt: string;
  id: number;
}

export interface PostSummary {
  id: number;
  title: string;
  slug: string;
  status: PostStatus;
  authorId: string;
  createdAt: Date;
  updatedAt: Date;
  position: PostPosition;
}

export interface SeekPage {
  items: PostSummary[];
  /** More posts exist after the last item; its position is where the next page starts. */
  hasNext: boolean;
}

interface OffsetPage {
  items: PostSummary[];
  total: number;
  hasNext: boolean;
}

interface FeedPage {
  /** Newest first. */
  items: PostSummary[];
  /** Older posts exist beyond the oldest edge. */
  hasOlder: boolean;
  /** Newer posts exist beyond the newest edge. */
  hasNewer: boolean;
  /** Where the page ends on each side: the edge items, or the anchor itself for an empty page. */
  newestEdge: PostPosition | null;
  oldestEdge: PostPosition | null;
}

export type FeedAnchor = { direction: 'older' | 'newer'; position: PostPosition };

function toSummary(row: PostListRow): PostSummary {
  return {
    id: row.id,
    title: row.title,
    slug: row.slug,
    status: toPostStatus(row.status),
    authorId: row.author_id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    position: { createdAt: row.created_at_exact, id: row.id },
  };
}

function checkLimit(limit: number): void {
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE) {
    throw validationFailed([{ field: ['limit'], source: 'parameter', message: `must be an integer from 1 to ${MAX_PAGE_SIZE}` }]);
  }
}

export class PostListsService {
  constructor(private readonly db: Database) {}

  /**
   * Offset page with the total. One repeatable-read snapshot, so `total` and the page agree even
   * while posts change (the page itself still shifts between requests: that is rule 4).
   */
  async offsetPage(viewer: Viewer, offset: number, limit: number): Promise<OffsetPage> {
    checkLimit(limit);
    if (!Number.isInteger(offset) || offset < 0)
      throw validationFailed([{ field: ['offset'], source: 'parameter', message: 'must be a whole number' }]);
    return this.db
      .transaction()
      .setIsolationLevel('repeatable read')
      .execute(async (trx) => {
        const rows = await offsetPosts(trx, listed(viewer), offset, limit);
        const total = await countPosts(trx, listed(viewer));
        return { items: rows.map(toSummary), total, hasNext: offset + rows.length < total };
      });
  }

  /**
   * Newest first, strictly older than `before` (a post position, or a bare instant when `id` is
   * null), or from the newest post when `before` is null.
   */
  async olderThan(viewer: Viewer, before: SeekBound | null, limit: number): Promise<SeekPage> {
    checkLimit(limit);
    const rows = await seekPosts(this.db, { visibility: listed(viewer), direction: 'older', from: before, limit: limit + 1 });
    return { items: rows.slice(0, limit).map(toSummary), hasNext: rows.length > limit };
  }

  /**
   * One feed page: the newest `limit` posts, or the `limit` posts immediately older or newer than
   * the anchor. The side the page was fetched towards is known from the extra row; the other side
   * takes one index probe, so `hasNewer`/`hasOlder` are exact even when the anchor post was deleted.
   */
  async feed(viewer: Viewer, anchor: FeedAnchor | null, limit: number): Promise<FeedPage> {
    checkLimit(limit);
    const visibility = listed(viewer);
    const direction = anchor?.direction ?? 'older';
    const rows = await seekPosts(this.db, { visibility, direction, from: anchor?.position ?? null, limit: limit + 1 });
    const more = rows.length > limit;
    const page = rows.slice(0, limit).map(toSummary);
    if (direction === 'newer') page.reverse();
    const newestEdge = page[0]?.position ?? anchor?.position ?? null;
    const oldestEdge = page.at(-1)?.position ?? anchor?.position ?? null;
    if (direction === 'older') {
      const hasNewer = newestEdge !== null && anchor !== null && (await existsBeyond(this.db, visibility, 'newer', newestEdge));
      return { items: page, hasOlder: more, hasNewer, newestEdge, oldestEdge };
    }
    const hasOlder = oldestEdge !== null && (await existsBeyond(this.db, visibility, 'older', oldestEdge));
    return { items: page, hasOlder, hasNewer: more, newestEdge, oldestEdge };
  }
}
