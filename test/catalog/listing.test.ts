// test-suite: once (paging and sorting SQL is the same text on both engines (C collation on both))
import t from 'tap';
import type { operations } from '../../generated/openapi/rest-v1.ts';
import { sharedServer } from '../helpers/server.ts';
import { bearer, dataOf, errorOf, expectStatus, json } from '../helpers/typed-client.ts';
import { createProduct } from './fixtures.ts';

t.test('list and search: paging, sorting, relevance, filters', async (t) => {
  const server = await sharedServer();
  const { api, v1 } = server;
  const made: { id: string }[] = [];
  type ListQuery = NonNullable<operations['listProducts']['parameters']['query']>;
  const list = (query: ListQuery, token?: string) => v1.GET('/api/v1/products', { params: { query }, headers: bearer(token) });
  const search = (query: operations['searchProducts']['parameters']['query'], token?: string) =>
    v1.GET('/api/v1/products/search', { params: { query }, headers: bearer(token) });
  for (const [i, [name, price, category]] of (
    [
      ['Walnut Desk', 300, 'HOME'],
      ['Oak Desk', 200, 'HOME'],
      ['Desk Lamp', 25.5, 'HOME'],
      ['Running Shoes', 89.99, 'SPORTS'],
      ['Desktop Computer', 999, 'ELECTRONICS'],
      ['Paper Notebook', 4.2, 'BOOKS'],
      ['Same Price A', 50, 'TOYS'],
      ['Same Price B', 50, 'TOYS'],
    ] as const
  ).entries()) {
    made.push(
      await createProduct(server, { name, price, category, sku: `LIST-${i}`, description: i === 5 ? 'Great for a desk drawer' : 'Plain' }),
    );
  }

  t.test('defaults: page 0, size 20, newest first, page metadata', async (t) => {
    const r = json(await dataOf(200, list({})));
    t.equal(r.content.length, 8);
    t.same(r.page, { number: 0, size: 20, totalElements: 8, totalPages: 1, first: true, last: true });
    t.same(
      r.content.map((p) => p.id),
      [...made].reverse().map((p) => p.id),
    );
  });

  t.test('pages walk every product exactly once, with a stable id tiebreak', async (t) => {
    const seen: string[] = [];
    for (let page = 0; page < 3; page++) {
      const r = json(await dataOf(200, list({ size: 3, page, sort: ['category,asc'] })));
      t.match(r.page, { number: page, size: 3, totalElements: 8, totalPages: 3, first: page === 0, last: page === 2 });
      seen.push(...r.content.map((p) => p.id));
    }
    t.equal(new Set(seen).size, 8);
    const past = json(await dataOf(200, list({ size: 3, page: 7 })));
    t.same(past.content, []);
    t.match(past.page, { number: 7, totalElements: 8, last: true, first: false });
    const ties = json(await dataOf(200, list({ sort: ['price,asc'], size: 100 })));
    const fifty = ties.content.filter((p) => p.price === 50).map((p) => p.id);
    t.same(fifty, [...fifty].sort(), 'equal prices ordered by id ascending');
  });

  t.test('repeatable sort: earlier entries take precedence', async (t) => {
    const r = json(await dataOf(200, list({ sort: ['category,desc', 'price,desc'] })));
    const keys = r.content.map((p) => [p.category, p.price] as const);
    const sorted = [...keys].sort((a, b) => (a[0] === b[0] ? b[1] - a[1] : a[0] < b[0] ? 1 : -1));
    t.same(keys, sorted);
    const byPrice = json(await dataOf(200, list({ sort: ['price,asc'] })));
    t.same(
      byPrice.content.map((p) => p.price),
      [4.2, 25.5, 50, 50, 89.99, 200, 300, 999],
    );
  });

  t.test('bad paging and sort parameters are 400s naming the parameter', async (t) => {
    for (const [query, field] of [
      [{ size: 0 }, 'query.size'],
      [{ size: 101 }, 'query.size'],
      [{ page: -1 }, 'query.page'],
      [{ sort: ['price'] }, 'query.sort.0'],
      [{ sort: ['price,up'] }, 'query.sort.0'],
    ] satisfies [ListQuery, string][]) {
      const r = await errorOf(400, list(query));
      t.match(r.errors, [{ field }], JSON.stringify(query));
    }
    // Raw client: a page that is not a number does not compile with the typed client.
    t.match((await api.get('/api/v1/products?page=x', { expect: 400 })).body.errors, [{ field: 'query.page' }], 'page=x');
    const unknown = await errorOf(400, list({ sort: ['password,asc'] }));
    t.match(unknown.errors, [{ field: 'query.sort', message: /password/ }]);
    await expectStatus(400, list({ sort: ['relevance,desc'] }));
    await expectStatus(401, list({}, 'bad.token.here'));
  });

  t.test('search matches substrings of name, description and SKU, case-insensitively', async (t) => {
    const names = async (q: string) => json(await dataOf(200, search({ q }))).content.map((p) => p.name);
    t.same((await names('alnu')).sort(), ['Walnut Desk'], 'inside a word');
    t.same(
      (await names('DESK')).sort(),
      ['Desk Lamp', 'Desktop Computer', 'Oak Desk', 'Paper Notebook', 'Walnut Desk'],
      'description matches too',
    );
    t.same(await names('list-3'), ['Running Shoes'], 'SKU');
    t.same(await names('desk walnut'), ['Walnut Desk'], 'every word, any order');
    t.same(await names('%'), [], 'LIKE wildcards are literal');
    t.same(await names('zzz'), []);
  });

  t.test('search ranks by relevance: exact name, then name prefix, then the rest', async (t) => {
    const r = json(await dataOf(200, search({ q: 'desk' })));
    const order = r.content.map((p) => p.name);
    t.equal(order[0], 'Desk Lamp', 'name starts with the query');
    t.equal(order[1], 'Desktop Computer');
    t.equal(order.at(-1), 'Paper Notebook', 'description-only match last');
    const exact = json(await dataOf(200, search({ q: 'oak desk' })));
    t.equal(exact.content[0]!.name, 'Oak Desk');
    const sorted = json(await dataOf(200, search({ q: 'desk', sort: ['price,asc'] })));
    t.same(
      sorted.content.map((p) => p.price),
      [4.2, 25.5, 200, 300, 999],
      'explicit sort overrides relevance',
    );
  });

  t.test('search filters: price range (inclusive) and category', async (t) => {
    const r = json(await dataOf(200, search({ q: 'desk', minPrice: 25.5, maxPrice: 300, category: 'HOME' })));
    t.same(r.content.map((p) => p.name).sort(), ['Desk Lamp', 'Oak Desk', 'Walnut Desk']);
    t.equal(r.page.totalElements, 3, 'count honours the filters');
    const paged = json(await dataOf(200, search({ q: 'desk', size: 2, page: 1 })));
    t.match(paged.page, { number: 1, size: 2, totalElements: 5, totalPages: 3 });
  });

  t.test('search errors are 400s', async (t) => {
    // Raw client: a missing `q` and a category outside the enum do not compile with the typed client.
    t.match((await api.get('/api/v1/products/search', { expect: 400 })).body.errors, [{ field: 'query.q' }]);
    t.match((await api.get('/api/v1/products/search?q=a&category=WEAPONS', { expect: 400 })).body.errors, [{ field: 'query.category' }]);
    t.match((await errorOf(400, search({ q: '' }))).errors, [{ field: 'query.q' }]);
    t.match((await errorOf(400, search({ q: 'a', minPrice: -1 }))).errors, [{ field: 'query.minPrice' }]);
    t.match((await errorOf(400, search({ q: 'a', minPrice: 10, maxPrice: 5 }))).errors, [{ field: 'query.minPrice' }]);
    t.match((await errorOf(400, search({ q: 'a', sort: ['secret,asc'] }))).errors, [{ field: 'query.sort' }]);
    await expectStatus(401, search({ q: 'a' }, 'nope'));
    await expectStatus(406, search({ q: 'a', format: 'yaml' }));
  });
});
