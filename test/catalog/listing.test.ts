import t from 'tap';
import { startServer } from '../helpers/server.ts';
import { createProduct } from './fixtures.ts';

t.test('list and search: paging, sorting, relevance, filters', async (t) => {
  const server = await startServer(t);
  const { api } = server;
  const made: any[] = [];
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
    const r = await api.get('/api/v1/products', { expect: 200 });
    t.equal(r.body.content.length, 8);
    t.same(r.body.page, { number: 0, size: 20, totalElements: 8, totalPages: 1, first: true, last: true });
    t.same(
      r.body.content.map((p: any) => p.id),
      [...made].reverse().map((p) => p.id),
    );
  });

  t.test('pages walk every product exactly once, with a stable id tiebreak', async (t) => {
    const seen: string[] = [];
    for (let page = 0; page < 3; page++) {
      const r = await api.get(`/api/v1/products?size=3&page=${page}&sort=category,asc`, { expect: 200 });
      t.match(r.body.page, { number: page, size: 3, totalElements: 8, totalPages: 3, first: page === 0, last: page === 2 });
      seen.push(...r.body.content.map((p: any) => p.id));
    }
    t.equal(new Set(seen).size, 8);
    const past = await api.get('/api/v1/products?size=3&page=7', { expect: 200 });
    t.same(past.body.content, []);
    t.match(past.body.page, { number: 7, totalElements: 8, last: true, first: false });
    const ties = await api.get('/api/v1/products?sort=price,asc&size=100', { expect: 200 });
    const fifty = ties.body.content.filter((p: any) => p.price === 50).map((p: any) => p.id);
    t.same(fifty, [...fifty].sort(), 'equal prices ordered by id ascending');
  });

  t.test('repeatable sort: earlier entries take precedence', async (t) => {
    const r = await api.get('/api/v1/products?sort=category,desc&sort=price,desc', { expect: 200 });
    const keys = r.body.content.map((p: any) => [p.category, p.price]);
    const sorted = [...keys].sort((a, b) => (a[0] === b[0] ? b[1] - a[1] : a[0] < b[0] ? 1 : -1));
    t.same(keys, sorted);
    const byPrice = await api.get('/api/v1/products?sort=price,asc', { expect: 200 });
    t.same(
      byPrice.body.content.map((p: any) => p.price),
      [4.2, 25.5, 50, 50, 89.99, 200, 300, 999],
    );
  });

  t.test('bad paging and sort parameters are 400s naming the parameter', async (t) => {
    for (const [query, field] of [
      ['size=0', 'query.size'],
      ['size=101', 'query.size'],
      ['page=-1', 'query.page'],
      ['page=x', 'query.page'],
      ['sort=price', 'query.sort.0'],
      ['sort=price,up', 'query.sort.0'],
    ]) {
      const r = await api.get(`/api/v1/products?${query}`, { expect: 400 });
      t.match(r.body.errors, [{ field }], String(query));
    }
    const unknown = await api.get('/api/v1/products?sort=password,asc', { expect: 400 });
    t.match(unknown.body.errors, [{ field: 'query.sort', message: /password/ }]);
    await api.get('/api/v1/products?sort=relevance,desc', { expect: 400 });
    await api.get('/api/v1/products', { token: 'bad.token.here', expect: 401 });
  });

  t.test('search matches substrings of name, description and SKU, case-insensitively', async (t) => {
    const names = async (query: string) =>
      (await api.get(`/api/v1/products/search?${query}`, { expect: 200 })).body.content.map((p: any) => p.name);
    t.same((await names('q=alnu')).sort(), ['Walnut Desk'], 'inside a word');
    t.same(
      (await names('q=DESK')).sort(),
      ['Desk Lamp', 'Desktop Computer', 'Oak Desk', 'Paper Notebook', 'Walnut Desk'],
      'description matches too',
    );
    t.same(await names('q=list-3'), ['Running Shoes'], 'SKU');
    t.same(await names('q=desk%20walnut'), ['Walnut Desk'], 'every word, any order');
    t.same(await names('q=%25'), [], 'LIKE wildcards are literal');
    t.same(await names('q=zzz'), []);
  });

  t.test('search ranks by relevance: exact name, then name prefix, then the rest', async (t) => {
    const r = await api.get('/api/v1/products/search?q=desk', { expect: 200 });
    const order = r.body.content.map((p: any) => p.name);
    t.equal(order[0], 'Desk Lamp', 'name starts with the query');
    t.equal(order[1], 'Desktop Computer');
    t.equal(order.at(-1), 'Paper Notebook', 'description-only match last');
    const exact = await api.get('/api/v1/products/search?q=oak%20desk', { expect: 200 });
    t.equal(exact.body.content[0].name, 'Oak Desk');
    const sorted = await api.get('/api/v1/products/search?q=desk&sort=price,asc', { expect: 200 });
    t.same(
      sorted.body.content.map((p: any) => p.price),
      [4.2, 25.5, 200, 300, 999],
      'explicit sort overrides relevance',
    );
  });

  t.test('search filters: price range (inclusive) and category', async (t) => {
    const r = await api.get('/api/v1/products/search?q=desk&minPrice=25.5&maxPrice=300&category=HOME', { expect: 200 });
    t.same(r.body.content.map((p: any) => p.name).sort(), ['Desk Lamp', 'Oak Desk', 'Walnut Desk']);
    t.equal(r.body.page.totalElements, 3, 'count honours the filters');
    const paged = await api.get('/api/v1/products/search?q=desk&size=2&page=1', { expect: 200 });
    t.match(paged.body.page, { number: 1, size: 2, totalElements: 5, totalPages: 3 });
  });

  t.test('search errors are 400s', async (t) => {
    t.match((await api.get('/api/v1/products/search', { expect: 400 })).body.errors, [{ field: 'query.q' }]);
    t.match((await api.get('/api/v1/products/search?q=', { expect: 400 })).body.errors, [{ field: 'query.q' }]);
    t.match((await api.get('/api/v1/products/search?q=a&minPrice=-1', { expect: 400 })).body.errors, [{ field: 'query.minPrice' }]);
    t.match((await api.get('/api/v1/products/search?q=a&minPrice=10&maxPrice=5', { expect: 400 })).body.errors, [
      { field: 'query.minPrice' },
    ]);
    t.match((await api.get('/api/v1/products/search?q=a&category=WEAPONS', { expect: 400 })).body.errors, [{ field: 'query.category' }]);
    t.match((await api.get('/api/v1/products/search?q=a&sort=secret,asc', { expect: 400 })).body.errors, [{ field: 'query.sort' }]);
    await api.get('/api/v1/products/search?q=a', { token: 'nope', expect: 401 });
    await api.get('/api/v1/products/search?q=a&format=yaml', { expect: 406 });
  });
});
