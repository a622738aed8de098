// test-suite: once (transport-level findings, answered before the database)
/**
 * What black-box fuzzing found, each kept as a test: request bodies that are JSON but not an object,
 * JSON nested past any reasonable depth, protocol-level oddities (Upgrade on a REST path, a bad
 * WebSocket handshake, two Host headers, no Host, an unknown expectation), a domain as long as DNS
 * allows in one path segment, errors before routing under /scim/v2, and GraphQL request errors from
 * the transport. Every answer is a 4xx in the area's own error format.
 */
import net from 'node:net';
import t from 'tap';
import { PATCH_OP, scimTenant } from '../helpers/scim.ts';
import { sharedServer } from '../helpers/server.ts';

const SCIM_ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';

/** One raw HTTP/1.1 exchange: the bytes as written, the answer's status line, headers and body. */
async function rawExchange(port: number, request: string): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  const socket = net.connect(port, '127.0.0.1');
  socket.write(request);
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  await new Promise<void>((resolve) => {
    socket.on('end', resolve);
    socket.on('close', () => resolve());
    // A kept-alive connection: stop once the whole answer has arrived.
    socket.on('data', () => {
      const text = Buffer.concat(chunks).toString('latin1');
      const split = text.indexOf('\r\n\r\n');
      const length = /\r\ncontent-length: *(\d+)/i.exec(text.slice(0, split))?.[1];
      if (split >= 0 && length !== undefined && text.length - split - 4 >= Number(length)) resolve();
    });
  });
  socket.destroy();
  const text = Buffer.concat(chunks).toString('utf8');
  const [head, ...rest] = text.split('\r\n\r\n');
  const [statusLine, ...headerLines] = head!.split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of headerLines) {
    const i = line.indexOf(':');
    headers[line.slice(0, i).toLowerCase()] = line.slice(i + 1).trim();
  }
  // Only this answer: a client that wrote past it (a body the server did not wait for) may get another.
  const body = Buffer.from(rest.join('\r\n\r\n'))
    .subarray(0, Number(headers['content-length'] ?? Infinity))
    .toString('utf8');
  return { status: Number(statusLine!.split(' ')[1]), headers, body };
}

t.test('SCIM: a body that is JSON but not an object, or none at all, is 400 invalidSyntax', async (t) => {
  const server = await sharedServer();
  const scim = await scimTenant(server, 'acme');
  const created = await scim.post(
    '/Users',
    { schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'], userName: 'nora@acme.example' },
    { expect: 201 },
  );
  const id = created.body.id as string;
  const raw = (method: string, path: string, body?: string) =>
    fetch(`${server.baseUrl}/scim/v2${path}`, {
      method,
      headers: { authorization: `Bearer ${scim.token}`, 'content-type': 'application/scim+json' },
      ...(body !== undefined ? { body } : {}),
    });
  for (const [method, path, body] of [
    ['POST', '/Users', 'null'],
    ['POST', '/Groups', 'null'],
    ['PUT', `/Users/${id}`, 'null'],
    ['PUT', `/Users/${id}`, '[]'],
    ['POST', '/Users', '"text"'],
    ['PATCH', `/Users/${id}`, undefined],
    ['PATCH', `/Users/${id}`, 'null'],
    ['PUT', `/Users/${id}`, undefined],
  ] as const) {
    const response = await raw(method, path, body);
    const answer = (await response.json()) as Record<string, unknown>;
    t.equal(response.status, 400, `${method} ${path} with ${body ?? 'no body'}: ${JSON.stringify(answer)}`);
    t.match(answer, { schemas: [SCIM_ERROR], status: '400', scimType: 'invalidSyntax' });
  }
  const after = await scim.get(`/Users/${id}`, { expect: 200 });
  t.equal(after.body.userName, 'nora@acme.example', 'the user is unchanged');
  t.equal(after.body.meta.version, created.body.meta.version);

  for (const segment of ['%E0%A4%A', '%zz', 'a%00b']) {
    const response = await raw('GET', `/Users/${segment}`);
    const answer = (await response.json()) as Record<string, unknown>;
    t.equal(response.status, 400, `GET /Users/${segment}`);
    t.match(response.headers.get('content-type'), /^application\/scim\+json/);
    t.match(answer, { schemas: [SCIM_ERROR], status: '400', scimType: 'invalidValue' }, `GET /Users/${segment}: ${JSON.stringify(answer)}`);
  }

  // Headers over the limit are refused by node's parser, before routing: still a SCIM error here.
  const port = Number(new URL(server.baseUrl).port);
  const huge = await rawExchange(
    port,
    `GET /scim/v2/Users HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${scim.token}\r\nX-Big: ${'h'.repeat(20_000)}\r\n\r\n`,
  );
  t.equal(huge.status, 431);
  t.match(huge.headers['content-type'], /^application\/scim\+json/);
  t.match(JSON.parse(huge.body), { schemas: [SCIM_ERROR], status: '431' });

  // A PatchOp far over the body limit: the 413 reaches the client every time, although it is still sending.
  for (let i = 0; i < 3; i++) {
    const big = JSON.stringify({ schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'displayName', value: 'x'.repeat(8_000_000) }] });
    const response = await raw('PATCH', `/Users/${id}`, big);
    t.equal(response.status, 413, `oversized PatchOp ${i + 1}`);
    t.match(await response.json(), { schemas: [SCIM_ERROR], status: '413' });
  }
});

t.test('JSON nested 10,000 deep in any body is a 400, before any handler walks it', async (t) => {
  const server = await sharedServer();
  const admin = await server.token('root', ['ADMIN']);
  const deep = `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`;
  for (const [method, path, body] of [
    ['PUT', '/api/v1/files/config', `{"settings":${deep}}`],
    ['POST', '/api/v1/products', `{"name":"n","price":"1.00","sku":"S-1","category":"HOME","attributes":${deep}}`],
    ['POST', '/graphql', `{"query":"{ __typename }","variables":${deep}}`],
  ] as const) {
    const response = await fetch(`${server.baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
      body,
    });
    const text = await response.text();
    t.equal(response.status, 400, `${method} ${path}: ${text.slice(0, 300)}`);
    if (path !== '/graphql') t.match(response.headers.get('content-type'), /^application\/problem\+json/);
  }
  const config = await fetch(`${server.baseUrl}/api/v1/files/config`, { headers: { authorization: `Bearer ${admin}` } });
  t.equal(config.status, 200, 'the stored configuration still reads');
});

t.test('protocol oddities get the area’s own 4xx, or are served as if absent', async (t) => {
  const server = await sharedServer();
  const port = Number(new URL(server.baseUrl).port);

  // Upgrade is a request the server may decline (RFC 9110 §7.8): a REST path is served as usual.
  const upgrade = await rawExchange(port, 'GET /api/v1/products HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n\r\n');
  t.equal(upgrade.status, 200, 'Upgrade: h2c on a REST path');
  t.match(JSON.parse(upgrade.body), { content: [] });
  const wsElsewhere = await rawExchange(
    port,
    'GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n',
  );
  t.equal(wsElsewhere.status, 200, 'a WebSocket upgrade on a path that has none is served as a plain request');

  // A broken WebSocket handshake on /graphql: Problem Details, not ws's text/html.
  const badVersion = await rawExchange(
    port,
    'GET /graphql HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 99\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Protocol: graphql-transport-ws\r\n\r\n',
  );
  t.equal(badVersion.status, 426, 'an unsupported WebSocket version is 426 Upgrade Required');
  t.equal(badVersion.headers['sec-websocket-version'], '13');
  t.match(badVersion.headers['content-type'], /^application\/problem\+json/);
  t.match(JSON.parse(badVersion.body), { status: 426 });
  const badKey = await rawExchange(
    port,
    'GET /graphql HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: short\r\n\r\n',
  );
  t.equal(badKey.status, 400);
  t.match(badKey.headers['content-type'], /^application\/problem\+json/);

  // RFC 9112 §3.2: no Host, or more than one, is a 400.
  const twoHosts = await rawExchange(port, 'GET /healthz HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n');
  t.equal(twoHosts.status, 400, 'two Host headers');
  t.match(twoHosts.headers['content-type'], /^application\/problem\+json/);
  const noHost = await rawExchange(port, 'GET /healthz HTTP/1.1\r\n\r\n');
  t.equal(noHost.status, 400, 'no Host header');
  t.match(noHost.headers['content-type'], /^application\/problem\+json/);
  t.match(JSON.parse(noHost.body), { status: 400 });

  const expectation = await rawExchange(
    port,
    'POST /graphql HTTP/1.1\r\nHost: x\r\nExpect: 999-x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}',
  );
  t.equal(expectation.status, 417);
  t.match(expectation.headers['content-type'], /^application\/problem\+json/);
  t.match(JSON.parse(expectation.body), { status: 417 });
});

t.test('a domain as long as DNS allows fits in its path segment', async (t) => {
  const server = await sharedServer();
  const admin = await server.token('root', ['ADMIN']);
  await server.app.services.tenants.create({ id: 'acme', name: 'Acme' });
  const label = 'a'.repeat(63);
  const domain = `${label}.${label}.${label}.${'b'.repeat(53)}.example`;
  t.equal(domain.length, 253);
  await server.api.get(`/api/v1/admin/tenants/acme/domains/${domain}`, { token: admin, expect: 404 });
  const longer = await fetch(`${server.baseUrl}/api/v1/admin/tenants/acme/domains/${'c'.repeat(256)}`, {
    headers: { authorization: `Bearer ${admin}` },
  });
  t.equal(longer.status, 414, 'a segment over 255 characters is 414');
  t.match(await longer.json(), { type: '/problems/uri-too-long' });
});

t.test('GraphQL transport errors carry extensions.errorType, in JSON', async (t) => {
  const server = await sharedServer();
  const post = (body: string, contentType = 'application/json') =>
    fetch(`${server.baseUrl}/graphql`, { method: 'POST', headers: { 'content-type': contentType, accept: 'application/json' }, body });
  for (const [label, response] of [
    ['no query', await post('{}')],
    ['a query that is not a string', await post('{"query": 1}')],
    ['variables that are not an object', await post('{"query": "{ __typename }", "variables": []}')],
    ['an operationName that is not a string', await post('{"query": "{ __typename }", "operationName": 5}')],
    ['extensions that are not an object', await post('{"query": "{ __typename }", "extensions": "x"}')],
    ['a batch', await post('[{"query": "{ __typename }"}]')],
    ['an unsupported media type', await post('{ __typename }', 'text/plain')],
    [
      'a mutation over GET',
      await fetch(`${server.baseUrl}/graphql?query=${encodeURIComponent('mutation { __typename }')}`, {
        headers: { accept: 'application/json' },
      }),
    ],
    ['GET without a query', await fetch(`${server.baseUrl}/graphql`, { headers: { accept: 'application/json' } })],
  ] as const) {
    t.ok(response.status >= 400 && response.status < 500, `${label}: ${response.status}`);
    t.match(response.headers.get('content-type'), /json/, `${label}: JSON`);
    const body = (await response.json()) as { errors?: { extensions?: { errorType?: string } }[] };
    t.ok(body.errors?.length, `${label}: errors`);
    t.ok(
      body.errors?.every((e) => e.extensions?.errorType === 'BAD_REQUEST'),
      `${label}: every error is BAD_REQUEST: ${JSON.stringify(body)}`,
    );
  }
});
