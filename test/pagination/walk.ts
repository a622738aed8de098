/**
 * Walks every page of a list form through the contract-checked client. `between` runs after each
 * page (the churn of the stability tests); each walk also checks the per-page rules of its form.
 */
import assert from 'node:assert/strict';
import type { ContractClient } from '../helpers/contract.ts';

export type WalkForm = 'standard' | 'cursor' | 'keyset' | 'feed' | 'offset';

interface WalkOptions {
  api: ContractClient;
  limit: number;
  token?: string;
  between?: (pageIndex: number) => Promise<void>;
  /** Guard against a walk that never ends (a broken cursor could loop). */
  maxPages?: number;
}

interface Item {
  id: number;
}

const q = (params: Record<string, string | number>) =>
  Object.entries(params)
    .map(([k, v]) => `${k}=${encodeURIComponent(String(v))}`)
    .join('&');

/** Returns the ids in the order the pages delivered them. */
export async function walk(form: WalkForm, { api, limit, token, between, maxPages = 10_000 }: WalkOptions): Promise<number[]> {
  const ids: number[] = [];
  const get = async (path: string) => (await api.get(path, { token, expect: 200 })).body;
  for (let page = 0, next: Record<string, string | number> | null = {}; next !== null; page++) {
    assert.ok(page < maxPages, `${form} walk did not end after ${maxPages} pages`);
    let items: Item[];
    switch (form) {
      case 'standard': {
        // Every page, the first included, is the standard envelope; `cursor` carries the walk.
        const body = await get(`/posts?${q({ ...next, limit })}`);
        assert.deepEqual(Object.keys(body).sort(), ['data', 'pagination'], 'each page is in the standard envelope');
        assert.deepEqual(Object.keys(body.pagination).sort(), ['cursor', 'has_next', 'limit'], 'standard pagination members');
        assert.equal(body.pagination.limit, limit);
        assert.equal(
          body.pagination.cursor === null,
          !body.pagination.has_next,
          'pagination.cursor is null exactly when has_next is false',
        );
        items = body.data;
        next = body.pagination.has_next ? { cursor: body.pagination.cursor } : null;
        break;
      }
      case 'cursor': {
        // The first page is the standard form (no paging parameter); the rest are the cursor form.
        const body = await get(`/posts?${q({ ...next, limit })}`);
        const hasNext: boolean = page === 0 ? body.pagination.has_next : body.has_next;
        const cursor: string | null = page === 0 ? body.pagination.cursor : body.cursor;
        assert.equal(cursor === null, !hasNext, 'cursor is null exactly when has_next is false');
        assert.ok(!('total' in body) && !('total' in (body.pagination ?? {})), 'cursor pages carry no total');
        items = body.data;
        next = hasNext ? { after: cursor! } : null;
        break;
      }
      case 'keyset': {
        const body = await get(`/posts?${q({ created_before: '9999-12-31T23:59:59Z', ...next, limit })}`);
        assert.equal(body.next === null, !body.has_next, 'next is null exactly when has_next is false');
        assert.ok(!('total' in body) && !('pagination' in body), 'keyset pages carry no total');
        items = body.data;
        next = body.has_next ? { created_before: body.next.created_before, id_before: body.next.id_before } : null;
        break;
      }
      case 'feed': {
        const body = await get(`/feed?${q({ ...next, limit })}`);
        assert.equal(body.cursors.before === null, !body.has_next, 'cursors.before is null exactly when has_next is false');
        items = body.data;
        next = body.has_next ? { before: body.cursors.before } : null;
        break;
      }
      case 'offset': {
        const offset = page * limit;
        const body = await get(`/posts?${q({ offset, limit })}`);
        assert.equal(typeof body.pagination.total, 'number', 'offset pages carry the total');
        items = body.data;
        next = body.pagination.has_next ? {} : null;
        break;
      }
    }
    assert.ok(items.length <= limit, 'a page never exceeds limit');
    ids.push(...items.map((i) => i.id));
    if (next !== null) await between?.(page);
  }
  return ids;
}
