/**
 * GET /posts answers one of four envelopes (a oneOf in openapi/posts.yaml), so its typed body is
 * their union; these pick the one a request asked for and fail when the server sent another.
 */
import type { components } from '../../generated/openapi/posts.ts';

type Schemas = components['schemas'];
type PostsPage = Schemas['StandardPage'] | Schemas['OffsetPage'] | Schemas['CursorPage'] | Schemas['KeysetPage'];

function wrongForm(expected: string, page: PostsPage): Error {
  return new Error(`expected the ${expected} envelope, got ${JSON.stringify(page).slice(0, 300)}`);
}

export function standardPage(page: PostsPage): Schemas['StandardPage'] {
  if ('pagination' in page && 'cursor' in page.pagination) return page as Schemas['StandardPage'];
  throw wrongForm('standard', page);
}

export function cursorPage(page: PostsPage): Schemas['CursorPage'] {
  if ('cursor' in page) return page;
  throw wrongForm('cursor', page);
}

export function keysetPage(page: PostsPage): Schemas['KeysetPage'] {
  if ('next' in page) return page;
  throw wrongForm('keyset', page);
}

export function offsetPage(page: PostsPage): Schemas['OffsetPage'] {
  if ('pagination' in page && 'total' in page.pagination) return page as Schemas['OffsetPage'];
  throw wrongForm('offset', page);
}
