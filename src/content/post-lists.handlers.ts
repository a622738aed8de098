/**
 * GET /posts and GET /feed: pick the form from the parameters, turn cursors into positions, call the
 * service, and shape the envelope of that form. Cursors are only minted when more items exist.
 */
import type { operations } from '../../generated/openapi/posts.ts';
import type { OperationHandlers } from '../http/openapi-routes.ts';
import type { Services } from '../services.ts';
import type { PostCursors } from './post-lists.cursors.ts';
import { feedRequestFrom, postsRequestFrom } from './post-lists.forms.ts';
import {
  toPostSummary,
  type CursorPage,
  type FeedPage,
  type KeysetPage,
  type OffsetPage,
  type StandardPage,
} from './post-lists.representation.ts';
import type { FeedAnchor, SeekPage } from './post-lists.service.ts';

export function postListHandlers(services: Pick<Services, 'postLists'>, cursors: PostCursors): OperationHandlers<operations> {
  const lists = services.postLists;

  /** The cursor of the last item when another page exists: rule 1, null exactly when has_next is false. */
  const nextCursor = (viewerId: string | null, page: SeekPage): string | null => {
    const last = page.items.at(-1);
    return page.hasNext && last ? cursors.encode('posts.after', viewerId, last.position) : null;
  };

  return {
    listPosts: async (request): Promise<StandardPage | OffsetPage | CursorPage | KeysetPage> => {
      const viewer = request.principal ?? null;
      const viewerId = viewer?.userId ?? null;
      const form = postsRequestFrom(request.query);
      switch (form.form) {
        case 'offset': {
          const page = await lists.offsetPage(viewer, form.offset, form.limit);
          return {
            data: page.items.map(toPostSummary),
            pagination: { total: page.total, offset: form.offset, limit: form.limit, has_next: page.hasNext },
          };
        }
        case 'standard': {
          const position = form.cursor === null ? null : cursors.decode('posts.after', viewerId, form.cursor, 'cursor');
          const page = await lists.olderThan(viewer, position, form.limit);
          return {
            data: page.items.map(toPostSummary),
            pagination: { cursor: nextCursor(viewerId, page), has_next: page.hasNext, limit: form.limit },
          };
        }
        case 'cursor': {
          const position = cursors.decode('posts.after', viewerId, form.after);
          const page = await lists.olderThan(viewer, position, form.limit);
          return { data: page.items.map(toPostSummary), cursor: nextCursor(viewerId, page), has_next: page.hasNext };
        }
        case 'keyset': {
          const page = await lists.olderThan(viewer, { createdAt: form.createdBefore, id: form.idBefore }, form.limit);
          const last = page.items.at(-1);
          return {
            data: page.items.map(toPostSummary),
            has_next: page.hasNext,
            next: page.hasNext && last ? { created_before: last.position.createdAt, id_before: last.id } : null,
          };
        }
      }
    },

    getFeed: async (request): Promise<FeedPage> => {
      const viewer = request.principal ?? null;
      const viewerId = viewer?.userId ?? null;
      const { limit, before, after } = feedRequestFrom(request.query);
      let anchor: FeedAnchor | null = null;
      if (before !== undefined) anchor = { direction: 'older', position: cursors.decode('feed.before', viewerId, before) };
      if (after !== undefined) anchor = { direction: 'newer', position: cursors.decode('feed.after', viewerId, after) };
      const page = await lists.feed(viewer, anchor, limit);
      return {
        data: page.items.map(toPostSummary),
        cursors: {
          before: page.hasOlder && page.oldestEdge ? cursors.encode('feed.before', viewerId, page.oldestEdge) : null,
          after: page.hasNewer && page.newestEdge ? cursors.encode('feed.after', viewerId, page.newestEdge) : null,
        },
        has_next: page.hasOlder,
        has_prev: page.hasNewer,
      };
    },
  };
}
