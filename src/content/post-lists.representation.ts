/** REST shapes of the post lists, typed from the OpenAPI document so a drifting shape fails to compile. */
import type { components } from '../../generated/openapi/posts.ts';
import type { PostSummary as Post } from './post-lists.service.ts';

type Schemas = components['schemas'];

export function toPostSummary(post: Post): Schemas['PostSummary'] {
  return {
    id: post.id,
    title: post.title,
    slug: post.slug,
    status: post.status,
    authorId: post.authorId,
    createdAt: post.createdAt.toISOString(),
    updatedAt: post.updatedAt.toISOString(),
  };
}

export type StandardPage = Schemas['StandardPage'];
export type OffsetPage = Schemas['OffsetPage'];
export type CursorPage = Schemas['CursorPage'];
export type KeysetPage = Schemas['KeysetPage'];
export type FeedPage = Schemas['FeedPage'];
