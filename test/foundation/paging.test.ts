import t from 'tap';
import { pageMetadata, pageOf } from '../../src/paging.ts';

t.test('REST page metadata and GraphQL pages come from one computation', async (t) => {
  t.same(pageMetadata(0, 10, 0), { number: 0, size: 10, totalElements: 0, totalPages: 0, first: true, last: true });
  t.same(pageMetadata(1, 10, 25), { number: 1, size: 10, totalElements: 25, totalPages: 3, first: false, last: false });
  t.same(pageMetadata(2, 10, 25), { number: 2, size: 10, totalElements: 25, totalPages: 3, first: false, last: true });
  t.same(pageMetadata(5, 10, 25), { number: 5, size: 10, totalElements: 25, totalPages: 3, first: false, last: true });
  for (const [page, size, total] of [
    [0, 10, 0],
    [0, 10, 10],
    [0, 10, 11],
    [1, 10, 25],
    [2, 10, 25],
    [7, 3, 4],
  ] as const) {
    const meta = pageMetadata(page, size, total);
    const p = pageOf([], page, size, total);
    t.equal(p.totalPages, meta.totalPages, `totalPages for ${page}/${size}/${total}`);
    t.equal(p.hasNext, !meta.last, `hasNext is "not last" for ${page}/${size}/${total}`);
  }
});
