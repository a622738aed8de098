// test-suite: once (content negotiation and the XML/CSV writers)
import t from 'tap';
import { parse } from 'csv-parse/sync';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { sharedServer } from '../helpers/server.ts';
import { createProduct } from './fixtures.ts';

// Item elements are lists wherever they occur, except the root element of a single product.
const xml = new XMLParser({
  parseTagValue: false,
  isArray: (name, jpath) => jpath !== 'product' && ['product', 'attribute', 'image'].includes(name),
});

/** JSON values as the XML text nodes carry them: strings (prices with 2 decimals), nulls omitted, lists under their item name. */
function asXmlData(value: unknown, itemNames: Record<string, string>, key = ''): unknown {
  if (Array.isArray(value)) return value.length ? { [itemNames[key]!]: value.map((v) => asXmlData(v, itemNames)) } : '';
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([, v]) => v !== null)
        .map(([k, v]) => [k, asXmlData(v, itemNames, k)]),
    );
  }
  return key === 'price' ? (value as number).toFixed(2) : String(value);
}
const ITEMS = { content: 'product', attributes: 'attribute', images: 'image' };

t.test('content negotiation of product resources', async (t) => {
  const server = await sharedServer();
  const { api } = server;
  const tricky = await createProduct(server, {
    name: 'Lamp, "desk"\nedition <b> & co',
    price: 19.9,
    sku: 'CSV-001',
    attributes: [{ key: 'k', value: 'v & <w>' }],
  });
  const plain = await createProduct(server, { description: undefined, name: 'Plain', price: 5, sku: 'CSV-002' });

  t.test('JSON is the default, also for */* and application/*', async (t) => {
    for (const accept of [undefined, '*/*', 'application/*', 'application/json']) {
      const r = await api.get(`/api/v1/products/${tricky.id}`, { headers: accept ? { accept } : {}, expect: 200 });
      t.match(r.headers.get('content-type'), /^application\/json/, String(accept));
    }
  });

  t.test('XML by Accept or format is well formed and parses back to the JSON data', async (t) => {
    const json = (await api.get(`/api/v1/products/${tricky.id}`, { expect: 200 })).body;
    for (const options of [
      { path: `/api/v1/products/${tricky.id}?format=xml` },
      { path: `/api/v1/products/${tricky.id}`, headers: { accept: 'application/xml' } },
    ]) {
      const r = await api.get(options.path, { headers: options.headers ?? {}, expect: 200 });
      t.match(r.headers.get('content-type'), /^application\/xml/);
      t.equal(XMLValidator.validate(r.text), true, 'well formed');
      t.same(xml.parse(r.text).product, asXmlData(json, ITEMS));
    }
    const page = await api.get('/api/v1/products?format=xml', { expect: 200 });
    t.equal(XMLValidator.validate(page.text), true);
    const pageJson = (await api.get('/api/v1/products', { expect: 200 })).body;
    t.same(xml.parse(page.text).products, asXmlData(pageJson, ITEMS));
  });

  t.test('prices read the same in XML and CSV (2 decimals); JSON keeps the exact number', async (t) => {
    const round = await createProduct(server, { name: 'Pricey round', price: 9.5, sku: 'PRICE-1' });
    const whole = await createProduct(server, { name: 'Pricey whole', price: 12, sku: 'PRICE-2' });
    t.equal((await api.get(`/api/v1/products/${round.id}`, { expect: 200 })).text.includes('"price":9.5,'), true, 'JSON number 9.5');
    t.equal((await api.get(`/api/v1/products/${whole.id}`, { expect: 200 })).body.price, 12);
    t.equal(xml.parse((await api.get(`/api/v1/products/${round.id}?format=xml`, { expect: 200 })).text).product.price, '9.50');
    t.equal(xml.parse((await api.get(`/api/v1/products/${whole.id}?format=xml`, { expect: 200 })).text).product.price, '12.00');
    const xmlPage = xml.parse((await api.get('/api/v1/products/search?q=Pricey&format=xml&sort=sku,asc', { expect: 200 })).text).products;
    const csvPage: { price: string }[] = parse(
      (await api.get('/api/v1/products/search?q=Pricey&format=csv&sort=sku,asc', { expect: 200 })).text,
      { columns: true },
    );
    t.same(
      xmlPage.content.product.map((p: { price: string }) => p.price),
      ['9.50', '12.00'],
    );
    t.same(
      csvPage.map((p: { price: string }) => p.price),
      ['9.50', '12.00'],
      'CSV and XML agree',
    );
    for (const id of [round.id, whole.id])
      await api.delete(`/api/v1/products/${id}`, { token: await server.token('root', ['ADMIN']), expect: 204 });
  });

  t.test('format wins over Accept', async (t) => {
    const r = await api.get(`/api/v1/products/${tricky.id}?format=json`, { headers: { accept: 'application/xml' }, expect: 200 });
    t.match(r.headers.get('content-type'), /^application\/json/);
  });

  t.test('CSV for product lists: header, 2-decimal prices, RFC 4180 quoting', async (t) => {
    const r = await api.get('/api/v1/products?format=csv&sort=sku,asc', { expect: 200 });
    t.match(r.headers.get('content-type'), /^text\/csv/);
    const lines = r.text.split('\r\n');
    t.equal(lines[0], 'id,name,price,sku,category');
    t.equal(lines[1], `${tricky.id},"Lamp, ""desk""\nedition <b> & co",19.90,CSV-001,OTHER`);
    t.same(parse(r.text, { columns: true }), [
      { id: tricky.id, name: tricky.name, price: '19.90', sku: 'CSV-001', category: 'OTHER' },
      { id: plain.id, name: 'Plain', price: '5.00', sku: 'CSV-002', category: 'OTHER' },
    ]);
    t.ok(r.text.endsWith('\r\n'), 'CRLF line ends');
    const byAccept = await api.get('/api/v1/products/search?q=csv', { headers: { accept: 'text/csv' }, expect: 200 });
    t.equal(byAccept.text.split('\r\n')[0], 'id,name,price,sku,category');
  });

  t.test('CSV text cells that would start a spreadsheet formula get a leading quote; JSON is unchanged', async (t) => {
    const formulas = [
      { name: '=HYPERLINK("http://evil.example","x")', sku: 'FORMULA-1' },
      { name: '@SUM(1+1)', sku: 'FORMULA-2' },
      { name: '-2+3', sku: 'FORMULA-3' },
      { name: '+1 tab\tinside', sku: '-FORMULA-4' },
      { name: '\tTabbed', sku: 'FORMULA-5' },
      { name: '\rReturned', sku: 'FORMULA-6' },
    ];
    const created: Awaited<ReturnType<typeof createProduct>>[] = [];
    for (const body of formulas) created.push(await createProduct(server, { ...body, price: 3 }));
    // Only this subtest's products, in creation order (the page holds the other subtests' products too).
    const rows = (text: string) => {
      const parsed = parse<Record<string, string>>(text, { columns: true });
      return created.map((p) => parsed.find((row) => row.id === p.id));
    };
    const quoted = (text: string) => `'${text}`;
    const expected = created.map((p) => ({
      id: p.id,
      name: quoted(p.name),
      price: '3.00',
      sku: p.sku.startsWith('-') ? quoted(p.sku) : p.sku,
      category: 'OTHER',
    }));
    t.same(rows((await api.get('/api/v1/products?format=csv&size=100', { expect: 200 })).text), expected, 'format=csv');
    const byAccept = await api.get('/api/v1/products?size=100', { headers: { accept: 'text/csv' }, expect: 200 });
    t.same(rows(byAccept.text), expected, 'Accept: text/csv');
    const search = await api.get('/api/v1/products/search?q=SUM&format=csv', { expect: 200 });
    t.same(
      parse<Record<string, string>>(search.text, { columns: true }).map((r) => r.name),
      ["'@SUM(1+1)"],
      'search',
    );
    t.ok(search.text.includes(`,'@SUM(1+1),3.00,`), 'the quote is inside the cell, the price is a plain number');
    for (const product of created) {
      t.equal((await api.get(`/api/v1/products/${product.id}`, { expect: 200 })).body.name, product.name, 'JSON keeps the name');
      await api.delete(`/api/v1/products/${product.id}`, { token: await server.token('root', ['ADMIN']), expect: 204 });
    }
  });

  t.test('unsupported representations are 406 problems; error bodies are always problem+json', async (t) => {
    const single = await api.get(`/api/v1/products/${tricky.id}?format=csv`, { expect: 406 });
    t.equal(single.headers.get('content-type'), 'application/problem+json; charset=utf-8');
    t.equal(single.body.type, '/problems/not-acceptable');
    t.match(single.body.detail, /format: json, xml$/, 'names the formats a single product offers');
    const yaml = await api.get('/api/v1/products?format=yaml', { expect: 406 });
    t.match(yaml.body, { type: '/problems/not-acceptable', status: 406, detail: /^format=yaml is not available.*format: json, xml, csv$/ });
    t.match((await api.get('/api/v1/products?format=', { expect: 406 })).body.type, '/problems/not-acceptable');
    t.match(
      (await api.get('/api/v1/products?format=constructor', { expect: 406 })).body.type,
      '/problems/not-acceptable',
      'no prototype lookup',
    );
    await api.get(`/api/v1/products/${tricky.id}`, { headers: { accept: 'text/html' }, expect: 406 });
    await api.get('/api/v1/products', { headers: { accept: 'application/pdf' }, expect: 406 });
    await api.get('/api/v1/products/search?q=a', { headers: { accept: 'image/png' }, expect: 406 });
    const missing = await api.get('/api/v1/products/3f1d0f3e-1c2b-4a5d-9e8f-0a1b2c3d4e5f?format=xml', { expect: 404 });
    t.equal(missing.headers.get('content-type'), 'application/problem+json; charset=utf-8');
    const invalid = await api.get('/api/v1/products?size=0', { headers: { accept: 'text/csv' }, expect: 400 });
    t.equal(invalid.headers.get('content-type'), 'application/problem+json; charset=utf-8');
  });
});

t.test('format=csv of 1,000 products parses back to the same rows', async (t) => {
  const server = await sharedServer();
  const db = server.database.db;
  // Seeded in SQL for speed; names exercise quoting (commas, quotes, newlines, unicode).
  const rows = Array.from({ length: 1000 }, (_, i) => ({
    name: i % 3 === 0 ? `Item ${i}, "special"\r\nline` : i % 3 === 1 ? `Élément ${i} ü` : `Plain ${i}`,
    description: null,
    price: `${((i * 7) % 100000) + 1}.${String(i % 100).padStart(2, '0')}`,
    sku: `BULK-${String(i).padStart(5, '0')}`,
    category: ['HOME', 'BOOKS', 'TOYS'][i % 3]!,
    stock_quantity: i,
  }));
  await db.insertInto('products').values(rows).execute();
  const stored = await db.selectFrom('products').select(['id', 'name', 'price', 'sku', 'category']).execute();
  const parsed: Record<string, string>[] = [];
  for (let page = 0; page < 10; page++) {
    const r = await server.api.get(`/api/v1/products?format=csv&size=100&page=${page}&sort=sku,asc`, { expect: 200 });
    parsed.push(...parse<Record<string, string>>(r.text, { columns: true }));
  }
  t.equal(parsed.length, 1000);
  const expected = stored
    .sort((a, b) => (a.sku < b.sku ? -1 : 1))
    .map((p) => ({ id: p.id, name: p.name, price: p.price, sku: p.sku, category: p.category }));
  t.same(parsed, expected);
  t.ok(
    parsed.every((p) => /^\d+\.\d{2}$/.test(p.price!)),
    'every price has 2 decimals',
  );
});
