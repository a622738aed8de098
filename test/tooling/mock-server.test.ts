// test-suite: once (the mock has no database).
/**
 * `npm run mock`: every REST operation of every OpenAPI document answers, from the document's
 * examples, a request built from the same examples, with its first documented 2xx status and a
 * response that passes the contract check; requests are validated as the real server validates them
 * (400 Problem Details), security is enforced (401 without a token), the response type is negotiated
 * (XML, CSV, 406), SCIM refusals are SCIM errors, and `Prefer` picks another documented response
 * (`code=`), a named example (`example=`) or a generated body (`dynamic=true`, within the bounds and
 * `if`/`then`/`else` rules its schema states). GraphQL answers from the schema, a page or list
 * holding as many rows as its `size`, `limit`, `first` or `last` asks. Mock answers do not count towards contract coverage. test/tooling/mock-vs-server.test.ts
 * compares the mock's answers with the real server's.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { addMocksToSchema, createMockStore } from '@graphql-tools/mock';
import { makeExecutableSchema } from '@graphql-tools/schema';
import { graphql } from 'graphql';
import t, { type Test } from 'tap';
import { freePort } from '../../scripts/lib/free-port.ts';
import { exampleOf, resolve } from '../../scripts/mock/examples.ts';
import { pageSizeResolvers } from '../../scripts/mock/graphql.ts';
import { createMockServer } from '../../scripts/mock/mock-server.ts';
import { loadConfig } from '../../src/config.ts';
import { documentNames } from '../../generated/openapi/index.ts';
import { loadOpenApiDocument } from '../../src/http/openapi-docs.ts';
import { ContractRegistry } from '../helpers/contract.ts';
import { SERVED_METHODS } from '../../src/http/openapi-methods.ts';

type Json = Record<string, any>;
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');

/** The request an example-reading client would send for `op`. */
function exampleRequest(doc: Json, path: string, item: Json, op: Json): { url: string; init: RequestInit } {
  const params = [...(item.parameters ?? []), ...(op.parameters ?? [])].map((p: Json) => resolve(doc, p)!);
  let url = path;
  const query = new URLSearchParams();
  const headers: Record<string, string> = { authorization: 'Bearer mock' };
  for (const p of params) {
    const value = exampleOf(doc, p);
    if (p.in === 'path') url = url.replace(`{${p.name as string}}`, encodeURIComponent(String(value)));
    else if (p.in === 'query' && p.required) for (const v of [value].flat()) query.append(p.name as string, String(v));
    else if (p.in === 'header' && p.required) headers[p.name as string] = String(value);
  }
  const init: RequestInit = { method: 'GET', headers };
  const body = resolve(doc, op.requestBody);
  const [type, media] = Object.entries<Json>(body?.content ?? {})[0] ?? [];
  if (type && media) {
    const example = exampleOf(doc, media);
    if (type === 'multipart/form-data') {
      const form = new FormData();
      for (const [name, schema] of Object.entries<Json>(resolve(doc, media.schema)?.properties ?? {})) {
        if (schema.format === 'binary' || schema.contentMediaType) form.append(name, new Blob([PNG], { type: 'image/png' }), 'pixel.png');
      }
      init.body = form;
    } else if (type === 'application/x-www-form-urlencoded') {
      headers['content-type'] = type;
      init.body = new URLSearchParams(example as Record<string, string>).toString();
    } else {
      headers['content-type'] = type;
      init.body = JSON.stringify(example);
    }
  }
  return { url: query.size ? `${url}?${query.toString()}` : url, init };
}

async function startMock(t: Test): Promise<string> {
  const app = await createMockServer(
    loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', AUTH_JWT_SECRET: 'mock-server-test-secret-at-least-32-characters' }),
  );
  await app.listen({ port: 0, host: '127.0.0.1' });
  t.teardown(() => app.close());
  const address = app.server.address();
  return `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
}

const registry = ContractRegistry.fromGenerated(false);

t.test('every operation answers its example, contract-checked', async (t) => {
  const baseUrl = await startMock(t);

  let operations = 0;
  for (const name of documentNames) {
    const doc = loadOpenApiDocument(name);
    for (const [path, item] of Object.entries<Json>(doc.paths ?? {})) {
      for (const method of SERVED_METHODS) {
        const op = item[method];
        if (!op) continue;
        operations++;
        const { url, init } = exampleRequest(doc, path, item, op);
        const response = await fetch(`${baseUrl}${url}`, { ...init, method: method.toUpperCase(), redirect: 'manual' });
        const text = await response.text();
        const expected =
          Object.keys(op.responses)
            .filter((s) => /^2/.test(s))
            .sort()[0] ?? Object.keys(op.responses)[0];
        const where = `${name} ${op.operationId as string}`;
        t.equal(String(response.status), expected, `${where}: ${text.slice(0, 300)}`);
        const contentType = response.headers.get('content-type');
        const body = contentType && /json/.test(contentType) && text ? (JSON.parse(text) as unknown) : text;
        t.doesNotThrow(() => registry.validate(method, url, response.status, contentType, text === '' ? undefined : body), where);
      }
    }
  }
  t.ok(operations > 90, `${operations} operations answered`);

  const invalid = await fetch(`${baseUrl}/api/v1/products/not-a-uuid`);
  t.equal(invalid.status, 400);
  t.match(await invalid.json(), { code: 'VALIDATION_ERROR', errors: [{ field: 'path.id' }] });
  const anonymous = await fetch(`${baseUrl}/api/v1/products`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });
  t.equal(anonymous.status, 401, 'security as documented');
  const preferred = await fetch(`${baseUrl}/api/v1/products/3fa85f64-5717-4562-b3fc-2c963f66afa6`, { headers: { prefer: 'code=404' } });
  t.equal(preferred.status, 404);
  t.match(preferred.headers.get('content-type'), /^application\/problem\+json/);
  const undocumented = await fetch(`${baseUrl}/api/v1/products/3fa85f64-5717-4562-b3fc-2c963f66afa6`, { headers: { prefer: 'code=418' } });
  t.equal(undocumented.status, 400);
});

const PRODUCT = '/api/v1/products/3fa85f64-5717-4562-b3fc-2c963f66afa6';

t.test('the response type is negotiated as the server negotiates it', async (t) => {
  const baseUrl = await startMock(t);
  const get = (path: string, headers: Record<string, string> = {}) => fetch(`${baseUrl}${path}`, { headers });
  for (const [path, headers] of [
    ['/api/v1/products?format=csv', {}],
    ['/api/v1/products', { accept: 'text/csv' }],
  ] as const) {
    const csv = await get(path, headers);
    t.equal(csv.status, 200);
    t.match(csv.headers.get('content-type'), /^text\/csv; charset=utf-8$/);
    t.match(await csv.text(), /^id,name,price,sku,category\r\n/, "the server's CSV writer");
  }
  const xml = await get('/api/v1/products', { accept: 'application/xml' });
  t.match(xml.headers.get('content-type'), /^application\/xml/);
  t.match(await xml.text(), /^<\?xml[^>]*>\n<products><content><product><id>/, "the server's XML writer, from the JSON example");
  const product = await get(`${PRODUCT}?format=xml`);
  t.match(await product.text(), /<product><id>3fa85f64/);
  for (const [path, headers] of [
    ['/api/v1/products?format=yaml', {}],
    ['/api/v1/products', { accept: 'application/yaml' }],
    ['/api/v2/products?format=xml', {}],
  ] as const) {
    const refused = await get(path, headers);
    t.equal(refused.status, 406, `${path} ${JSON.stringify(headers)}`);
    t.match(refused.headers.get('content-type'), /^application\/problem\+json/);
    t.match(await refused.json(), { type: '/problems/not-acceptable', status: 406 });
  }
  const image = await get(`${PRODUCT}/images/3fa85f64-5717-4562-b3fc-2c963f66afa6`);
  t.equal(image.headers.get('content-type'), 'image/png', 'an image is a PNG, never a wildcard type');
  t.equal(
    Buffer.from(await image.arrayBuffer())
      .subarray(1, 4)
      .toString(),
    'PNG',
  );
  const file = await get('/api/v1/files/3fa85f64-5717-4562-b3fc-2c963f66afa6', { authorization: 'Bearer mock' });
  t.equal(file.status, 200);
  t.equal(file.headers.get('content-type'), 'application/octet-stream', 'a file of any type is bytes, never */*');
  t.equal((await get('/api/v1/files/3fa85f64-5717-4562-b3fc-2c963f66afa6?format=json', { authorization: 'Bearer mock' })).status, 406);
});

t.test('SCIM refusals are SCIM errors', async (t) => {
  const baseUrl = await startMock(t);
  const scimError = { schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'] };
  const anonymous = await fetch(`${baseUrl}/scim/v2/Users`);
  t.equal(anonymous.status, 401);
  t.match(anonymous.headers.get('content-type'), /^application\/scim\+json/);
  t.match(await anonymous.json(), { ...scimError, status: '401' });
  const invalid = await fetch(`${baseUrl}/scim/v2/Users?count=many`, { headers: { authorization: 'Bearer mock' } });
  t.equal(invalid.status, 400);
  t.match(await invalid.json(), { ...scimError, status: '400', scimType: 'invalidValue' });
  const missing = await fetch(`${baseUrl}/scim/v2/Users/abc`, { headers: { authorization: 'Bearer mock', prefer: 'code=404' } });
  t.equal(missing.status, 404);
  t.match(await missing.json(), { ...scimError, status: '404' });
  const unrouted = await fetch(`${baseUrl}/scim/v2/Nothing`, { headers: { authorization: 'Bearer mock' } });
  t.match(await unrouted.json(), { ...scimError, status: '404' });
});

t.test('Prefer picks a named example or a generated body', async (t) => {
  const baseUrl = await startMock(t);
  const named = await fetch(`${baseUrl}/api/v1/products?format=xml`, { headers: { prefer: 'example=page' } });
  t.equal(named.status, 200);
  t.match(await named.text(), /<name>Desk lamp<\/name>/);
  const unknown = await fetch(`${baseUrl}/api/v1/products`, { headers: { prefer: 'example=nope' } });
  t.equal(unknown.status, 400);
  t.match(await unknown.json(), { status: 400, detail: /example=nope .*known: page/ });
  for (const path of ['/api/v1/products', '/api/v2/products', PRODUCT]) {
    const dynamic = await fetch(`${baseUrl}${path}`, { headers: { prefer: 'dynamic=true' } });
    const body = (await dynamic.json()) as Json;
    t.equal(dynamic.status, 200, path);
    t.doesNotThrow(
      () => registry.validate('get', path, 200, dynamic.headers.get('content-type'), body),
      `${path}: generated, contract-checked`,
    );
  }
  const both = await fetch(`${baseUrl}${PRODUCT}`, { headers: { prefer: 'code=404, dynamic=true' } });
  t.equal(both.status, 404);
  t.match(await both.json(), { status: Number });
});

t.test('Prefer: dynamic=true keeps the bounds and the rules the schemas state', async (t) => {
  // ProductResponse states price >= 0.01, stockQuantity >= 0 and, by if/then/else, inStock exactly
  // when stockQuantity > 0 (src/catalog/products.v1.representation.ts); v2's Inventory the same.
  const baseUrl = await startMock(t);
  const dynamic = async (path: string) =>
    (await (await fetch(`${baseUrl}${path}`, { headers: { prefer: 'dynamic=true' } })).json()) as Json;
  const v1: Json[] = [];
  const v2: Json[] = [];
  for (let i = 0; i < 50; i++) {
    v1.push(await dynamic(PRODUCT), ...((await dynamic('/api/v1/products')).content as Json[]));
    v2.push(...((await dynamic('/api/v2/products')).content as Json[]));
  }
  const broken = v1.filter(
    (p) => !(p.price >= 0.01 && Number.isInteger(p.stockQuantity) && p.stockQuantity >= 0 && p.inStock === p.stockQuantity > 0),
  );
  t.same(broken, [], `${v1.length} v1 products: price >= 0.01, stockQuantity >= 0, inStock === stockQuantity > 0`);
  const brokenV2 = v2.filter(
    (p) => !(Number(p.price.amount) >= 0 && p.inventory.quantity >= 0 && p.inventory.inStock === p.inventory.quantity > 0),
  );
  t.same(brokenV2, [], `${v2.length} v2 products: amount >= 0, quantity >= 0, inStock === quantity > 0`);
  t.ok(
    v1.some((p) => p.inStock) && v1.some((p) => !p.inStock),
    "both branches of the schema's if/then/else are generated, not only `then`",
  );
});

t.test('GraphQL page sizes decide how many rows a mocked list or page holds', async (t) => {
  const baseUrl = await startMock(t);
  const ask = async (query: string) => {
    const response = await fetch(`${baseUrl}/graphql`, {
      method: 'POST',
      headers: { authorization: 'Bearer mock', 'content-type': 'application/json' },
      body: JSON.stringify({ query }),
    });
    return (await response.json()) as { data: Json; errors?: unknown };
  };
  const five = await ask('{ users(size: 5) { content { id } } }');
  t.equal(five.data.users.content.length, 5, 'users(size: 5) holds 5 users');
  t.equal(new Set(five.data.users.content.map((u: Json) => u.id)).size, 5, 'five different users');
  t.equal((await ask('{ users { content { id } } }')).data.users.content.length, 20, "without `size`, the argument's default (20)");
  const nested = await ask('{ searchUsers(query: "a", limit: 3) { followers(limit: 4) { id } posts(size: 1) { content { id } } } }');
  t.equal(nested.data.searchUsers.length, 3, 'a list: searchUsers(limit: 3)');
  for (const user of nested.data.searchUsers as Json[]) {
    t.equal(user.followers.length, 4, 'a nested list: followers(limit: 4)');
    t.equal(user.posts.content.length, 1, 'a nested page: posts(size: 1)');
  }
  const over = await ask('{ users(size: 101) { content { id } } }');
  t.match(over, { errors: [{}] }, 'a size over its @constraint max is refused as the server refuses it');
});

t.test('a Relay connection takes `first` too, at most 100 rows without a declared max', async (t) => {
  // The project's SDL pages with `size` and `limit` only; a connection shows the same code holds for `first`.
  const schema = makeExecutableSchema({
    typeDefs: `
      directive @constraint(max: Int) on ARGUMENT_DEFINITION
      type Node { id: ID! }
      type Edge { cursor: String! node: Node! }
      type Connection { edges: [Edge!]! nodes: [Node!]! total: Int! }
      type Query { items(first: Int): Connection! capped(last: Int @constraint(max: 7)): [Node!]! }
    `,
  });
  const store = createMockStore({ schema });
  const mocked = addMocksToSchema({ schema, store, resolvers: pageSizeResolvers(schema, store) });
  const result = await graphql({
    schema: mocked,
    source: '{ items(first: 3) { edges { node { id } } nodes { id } } all: items(first: 150) { nodes { id } } capped(last: 9) { id } }',
  });
  const data = result.data as Json;
  t.equal(data.items.edges.length, 3, 'first: 3 gives 3 edges');
  t.equal(data.items.nodes.length, 3, 'and 3 nodes');
  t.equal(data.all.nodes.length, 100, 'at most 100 rows');
  t.equal(data.capped.length, 7, 'at most the @constraint max');
});

t.test('GraphQL answers from the schema', async (t) => {
  const baseUrl = await startMock(t);
  const headers = { authorization: 'Bearer mock', 'content-type': 'application/json' };
  const query = '{ __schema { queryType { name } } }';
  const post = await fetch(`${baseUrl}/graphql`, { method: 'POST', headers, body: JSON.stringify({ query }) });
  t.equal(post.status, 200);
  t.same(await post.json(), { data: { __schema: { queryType: { name: 'Query' } } } });
  const get = await fetch(`${baseUrl}/graphql?query=${encodeURIComponent('{ __typename }')}`, {
    headers: { authorization: 'Bearer mock' },
  });
  t.same(await get.json(), { data: { __typename: 'Query' } });
  const users = await fetch(`${baseUrl}/graphql`, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      query: 'query Find($q: String!) { searchUsers(query: $q) { id username displayName } }',
      variables: { q: 'a' },
    }),
  });
  const found = (await users.json()) as { data: { searchUsers: Json[] } };
  t.ok(found.data.searchUsers.length > 0, 'lists are mocked');
  t.match(found.data.searchUsers[0], { id: String, username: String, displayName: String });
  const refused = await fetch(`${baseUrl}/graphql`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ query: '{ searchUsers(query: "") { id } }' }),
  });
  t.match(await refused.json(), { errors: [{}] }, "the schema's @constraint directives hold");
  const invalid = await fetch(`${baseUrl}/graphql`, { method: 'POST', headers, body: JSON.stringify({ query: '{ noSuchField }' }) });
  t.match(await invalid.json(), { errors: [{ message: /noSuchField/ }] });
});

t.test('stopping `npm run mock` by its npm process stops the mock', async (t) => {
  // npm passes SIGTERM to the shell it runs a script in; the script execs its command so that the
  // signal reaches the server instead of stopping the shell alone and orphaning it (package.json).
  const port = await freePort();
  const npm = spawn('npm', ['run', '--silent', 'mock'], {
    cwd: path.resolve(import.meta.dirname, '../..'),
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'silent' },
    stdio: 'ignore',
  });
  const answers = () =>
    fetch(`http://127.0.0.1:${port}/api/v1/products`).then(
      () => true,
      () => false,
    );
  const until = async (wanted: boolean, seconds: number) => {
    for (const deadline = Date.now() + seconds * 1000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 200))) {
      if ((await answers()) === wanted) return true;
    }
    return false;
  };
  t.teardown(() => void npm.kill('SIGKILL'));
  t.ok(await until(true, 90), 'the mock answers');
  npm.kill('SIGTERM');
  t.ok(await until(false, 20), 'and no longer answers once its npm process is stopped');
});
