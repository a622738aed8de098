// test-suite: once (the examples are text of the published documents; the database behind the server does not change them).
/**
 * Every example error body of the published OpenAPI documents (Problem Details, and SCIM's Error
 * message under /scim/v2) is what the server says: for each one, a request that produces that error,
 * and the server's body compared with the example, field by field, all but `instance` (the request's
 * path). Where a number in `detail` belongs to the request (the seconds left, the bytes of a quota
 * the test sets small), `perRequest` says which, and only those are left out.
 *
 * The table has one row per example, named by where it is (`<document>#<JSON pointer>` into
 * generated/openapi/<document>.json, the bundled document /openapi serves); a shared response
 * (openapi/components/problem.yaml, scripts/generate/transport-responses.ts) is checked once, in the
 * first document that holds it, and a last test finds every example of every document in the table.
 * Errors no request can cause on purpose (a failure of the code, a database that is down, a full
 * disk) are rendered from the error the server would catch, by the server's own renderer.
 */
import net from 'node:net';
import t from 'tap';
import { insufficientStorage } from '../../src/errors.ts';
import { toProblem } from '../../src/http/problem.ts';
import { loadOpenApiDocument } from '../../src/http/openapi-docs.ts';
import { toScimError } from '../../src/identity/scim/scim-error-handler.ts';
import { documentNames } from '../../generated/openapi/index.ts';
import { multipart, ONE_PIXEL_PNG, productBody } from '../catalog/fixtures.ts';
import { scimTenant, USER_SCHEMA, PATCH_OP } from '../helpers/scim.ts';
import { sharedServer, type TestServer } from '../helpers/server.ts';

type Json = Record<string, any>;

/** The server of every row: a small files quota and sign-in budget, so both can be spent quickly. */
const ENV = { FILES_QUOTA_BYTES: '1000', SIGN_IN_ATTEMPTS_PER_ACCOUNT: '1' };
const MISSING = '3fa85f64-5717-4562-b3fc-2c963f66afa6';
const UPLOAD_LIMIT = 10_000_000;

interface World {
  server: TestServer;
  admin: string;
  user: string;
  scimToken: string;
  /** A product of the catalog. */
  productId: string;
  /** A SCIM user of the tenant: bjensen@example.com with a work e-mail address. */
  scimUserId: string;
}

interface Row {
  /** `<document>#<JSON pointer>` of the example in the bundled document. */
  example: string;
  /** The operation the request calls (its operationId), or what produces the error without a request. */
  operation: string;
  /** Sends the request (or renders the error) and answers the body the server gives. */
  answer: (w: World) => Promise<unknown>;
  /** Parts of `detail` that are the request's own (a count of seconds, of bytes), left out of the comparison. */
  perRequest?: RegExp;
}

async function call(
  w: World,
  method: string,
  path: string,
  init: { token?: string; headers?: Record<string, string>; body?: RequestInit['body'] } = {},
) {
  const headers: Record<string, string> = { ...init.headers };
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  const response = await fetch(`${w.server.baseUrl}${path}`, { method, headers, ...(init.body !== undefined ? { body: init.body } : {}) });
  return (await response.json()) as Json;
}

const json = (w: World, method: string, path: string, body: unknown, token?: string, type = 'application/json') =>
  call(w, method, path, { ...(token ? { token } : {}), headers: { 'content-type': type }, body: JSON.stringify(body) });

/** A request whose line and headers exceed 16 KiB, which fetch would not send: over a socket. */
function oversizedHeaders(w: World, path: string): Promise<Json> {
  const port = Number(new URL(w.server.baseUrl).port);
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () =>
      socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\nX-Padding: ${'a'.repeat(20_000)}\r\nConnection: close\r\n\r\n`),
    );
    const chunks: Buffer[] = [];
    socket.on('data', (d) => chunks.push(d));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      resolve(JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)) as Json);
    });
  });
}

const tooLargeJson = () => JSON.stringify({ name: 'x'.repeat(1_100_000) });
const scimPatch = (w: World, operations: unknown[], ifMatch?: string) =>
  call(w, 'PATCH', `/scim/v2/Users/${w.scimUserId}`, {
    token: w.scimToken,
    headers: { 'content-type': 'application/scim+json', ...(ifMatch ? { 'if-match': ifMatch } : {}) },
    body: JSON.stringify({ schemas: [PATCH_OP], Operations: operations }),
  });

const P = '/content/application~1problem+json';
const S = '/content/application~1scim+json';

const ROWS: Row[] = [
  // openapi/components/problem.yaml
  {
    example: `rest-v1#/components/responses/BadRequest${P}/examples/validation/value`,
    operation: 'createProduct',
    answer: (w) => json(w, 'POST', '/api/v1/products', { ...productBody(), price: 0, attributes: [{ key: ' ', value: 'black' }] }, w.admin),
  },
  {
    example: `rest-v1#/components/responses/BadRequest${P}/examples/malformed/value`,
    operation: 'createProduct',
    answer: (w) =>
      call(w, 'POST', '/api/v1/products', { token: w.admin, headers: { 'content-type': 'application/json' }, body: '{"name": ' }),
  },
  {
    example: `rest-v1#/components/responses/Unauthorized${P}/example`,
    operation: 'createProduct',
    answer: (w) => json(w, 'POST', '/api/v1/products', productBody()),
  },
  {
    example: `rest-v1#/components/responses/Forbidden${P}/example`,
    operation: 'createProduct',
    answer: (w) => json(w, 'POST', '/api/v1/products', productBody(), w.user),
  },
  {
    example: `rest-v1#/components/responses/NotFound${P}/example`,
    operation: 'getProduct',
    answer: (w) => call(w, 'GET', `/api/v1/products/${MISSING}`),
  },
  {
    example: `rest-v1#/components/responses/NotAcceptable${P}/example`,
    operation: 'getProduct',
    answer: (w) => call(w, 'GET', `/api/v1/products/${w.productId}`, { headers: { accept: 'text/csv' } }),
  },
  {
    example: `rest-v1#/components/responses/Conflict${P}/example`,
    operation: 'createProduct',
    answer: async (w) => {
      await json(w, 'POST', '/api/v1/products', productBody({ sku: 'ABC-123' }), w.admin);
      return json(w, 'POST', '/api/v1/products', productBody({ sku: 'ABC-123' }), w.admin);
    },
  },
  {
    example: `rest-v1#/components/responses/PreconditionFailed${P}/example`,
    operation: 'updateConfig',
    answer: async (w) => {
      const put = (ifMatch?: string) =>
        call(w, 'PUT', '/api/v1/files/config', {
          token: w.admin,
          headers: { 'content-type': 'application/json', ...(ifMatch ? { 'if-match': ifMatch } : {}) },
          body: JSON.stringify({ settings: {} }),
        });
      for (let version = Number((await call(w, 'GET', '/api/v1/files/config')).version); version < 8; version++) await put();
      return put('"1"');
    },
  },
  {
    example: `rest-v1#/components/responses/PayloadTooLarge${P}/examples/body/value`,
    operation: 'createProduct',
    answer: (w) =>
      call(w, 'POST', '/api/v1/products', { token: w.admin, headers: { 'content-type': 'application/json' }, body: tooLargeJson() }),
  },
  {
    example: `rest-v1#/components/responses/PayloadTooLarge${P}/examples/upload/value`,
    operation: 'uploadProductImage',
    answer: (w) =>
      call(w, 'POST', `/api/v1/products/${w.productId}/images`, {
        token: w.admin,
        body: multipart('file', Buffer.concat([ONE_PIXEL_PNG, Buffer.alloc(UPLOAD_LIMIT)]), 'large.png', 'image/png'),
      }),
  },
  {
    example: `rest-v1#/components/responses/InsufficientStorage${P}/example`,
    operation: 'uploadFile: the disk check (src/db/storage-headroom.ts) refusing 5000000 bytes, rendered by toProblem',
    answer: async () => toProblem(insufficientStorage(5_000_000), '/api/v1/files'),
  },
  {
    example: `rest-v1#/components/responses/UploadTooLarge${P}/examples/tooLarge/value`,
    operation: 'uploadFile',
    answer: (w) =>
      call(w, 'POST', '/api/v1/files', { token: w.user, body: multipart('file', Buffer.alloc(UPLOAD_LIMIT + 1), 'large.bin') }),
  },
  {
    example: `rest-v1#/components/responses/UploadTooLarge${P}/examples/quotaExceeded/value`,
    operation: 'uploadFile',
    answer: async (w) => {
      await call(w, 'POST', '/api/v1/files', { token: w.user, body: multipart('file', Buffer.alloc(600), 'first.bin') });
      return call(w, 'POST', '/api/v1/files', { token: w.user, body: multipart('file', Buffer.alloc(500), 'second.bin') });
    },
    // FILES_QUOTA_BYTES is 1000 here: the sizes are the test's.
    perRequest: /\d+/g,
  },
  {
    example: `rest-v1#/components/responses/UnsupportedMediaType${P}/example`,
    operation: 'createProduct',
    answer: (w) =>
      call(w, 'POST', '/api/v1/products', { token: w.admin, headers: { 'content-type': 'text/csv' }, body: 'name,price\nLamp,1' }),
  },
  {
    example: `auth#/components/responses/TooManyRequests${P}/example`,
    operation: 'login',
    answer: async (w) => {
      const login = () => json(w, 'POST', '/auth/login', { email: 'ada@example.com', password: 'not the password' });
      await login();
      return login();
    },
    perRequest: /\d+(?= seconds)/,
  },
  {
    example: `rest-v1#/components/responses/InternalError${P}/example`,
    operation: 'any operation: an unexpected error, rendered by toProblem',
    answer: async () => toProblem(new Error('connection to 10.0.0.7 refused by pg_hba'), '/api/v1/products'),
  },
  {
    example: `ops#/components/responses/ServiceUnavailable${P}/example`,
    operation: 'any operation: the database unreachable (ECONNREFUSED), rendered by toProblem',
    answer: async () =>
      toProblem(Object.assign(new Error('connect ECONNREFUSED 10.0.0.7:5432'), { code: 'ECONNREFUSED' }), '/api/v1/products'),
  },
  // scripts/generate/transport-responses.ts, Problem Details
  {
    example: `rest-v1#/components/responses/UriTooLong${P}/example`,
    operation: 'getProduct',
    answer: (w) => call(w, 'GET', `/api/v1/products/${'a'.repeat(256)}`),
  },
  {
    example: `rest-v1#/components/responses/HeaderFieldsTooLarge${P}/example`,
    operation: 'listProducts',
    answer: (w) => oversizedHeaders(w, '/api/v1/products'),
  },
  {
    example: `rest-v1#/components/responses/UnexpectedBodyTooLarge${P}/example`,
    operation: 'deleteProduct',
    answer: (w) =>
      call(w, 'DELETE', `/api/v1/products/${w.productId}`, {
        token: w.admin,
        headers: { 'content-type': 'application/json' },
        body: tooLargeJson(),
      }),
  },
  {
    example: `rest-v1#/components/responses/UnexpectedBodyType${P}/example`,
    operation: 'deleteProduct',
    answer: (w) =>
      call(w, 'DELETE', `/api/v1/products/${w.productId}`, { token: w.admin, headers: { 'content-type': 'text/csv' }, body: 'a,b' }),
  },
  // openapi/scim.yaml
  {
    example: `scim#/components/responses/BadRequest${S}/examples/invalidFilter/value`,
    operation: 'scimListUsers',
    answer: (w) => call(w, 'GET', `/scim/v2/Users?filter=${encodeURIComponent('userName eq "bjensen')}`, { token: w.scimToken }),
  },
  {
    example: `scim#/components/responses/BadRequest${S}/examples/invalidValue/value`,
    operation: 'scimCreateUser',
    answer: (w) => json(w, 'POST', '/scim/v2/Users', { schemas: [USER_SCHEMA] }, w.scimToken, 'application/scim+json'),
  },
  {
    example: `scim#/components/responses/BadRequest${S}/examples/noTarget/value`,
    operation: 'scimPatchUser',
    answer: (w) => scimPatch(w, [{ op: 'replace', path: 'emails[type eq "home"].value', value: 'babs@example.com' }]),
  },
  {
    example: `scim#/components/responses/Unauthorized${S}/example`,
    operation: 'scimListUsers',
    answer: (w) => call(w, 'GET', '/scim/v2/Users'),
  },
  {
    example: `scim#/components/responses/NotFound${S}/example`,
    operation: 'scimGetUser',
    answer: (w) => call(w, 'GET', '/scim/v2/Users/2819c223-7f76-453a-919d-413861904646', { token: w.scimToken }),
  },
  {
    example: `scim#/components/responses/Conflict${S}/example`,
    operation: 'scimCreateUser',
    answer: (w) =>
      json(w, 'POST', '/scim/v2/Users', { schemas: [USER_SCHEMA], userName: 'bjensen@example.com' }, w.scimToken, 'application/scim+json'),
  },
  {
    example: `scim#/components/responses/PreconditionFailed${S}/example`,
    operation: 'scimPatchUser',
    answer: async (w) => {
      for (const name of ['Barbara Jensen', 'Babs Jensen', 'Barb Jensen'])
        await scimPatch(w, [{ op: 'replace', path: 'displayName', value: name }]);
      return scimPatch(w, [{ op: 'replace', path: 'displayName', value: 'Ms. Barbara Jensen' }], 'W/"1"');
    },
    // The user's id is the test's.
    perRequest: /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/,
  },
  {
    example: `scim#/components/responses/PayloadTooLarge${S}/example`,
    operation: 'scimCreateUser',
    answer: (w) =>
      call(w, 'POST', '/scim/v2/Users', { token: w.scimToken, headers: { 'content-type': 'application/scim+json' }, body: tooLargeJson() }),
  },
  {
    example: `scim#/components/responses/UnsupportedMediaType${S}/example`,
    operation: 'scimCreateUser',
    answer: (w) =>
      call(w, 'POST', '/scim/v2/Users', { token: w.scimToken, headers: { 'content-type': 'text/plain' }, body: 'userName=bjensen' }),
  },
  {
    example: `scim#/components/responses/InternalError${S}/example`,
    operation: 'any SCIM operation: an unexpected error, rendered by the SCIM error handler',
    answer: async () => toScimError(new Error('connection to 10.0.0.7 refused by pg_hba')),
  },
  // scripts/generate/transport-responses.ts, SCIM's Error message
  {
    example: `scim#/components/responses/UriTooLong${S}/example`,
    operation: 'scimGetUser',
    answer: (w) => call(w, 'GET', `/scim/v2/Users/${'a'.repeat(256)}`, { token: w.scimToken }),
  },
  {
    example: `scim#/components/responses/HeaderFieldsTooLarge${S}/example`,
    operation: 'scimListUsers',
    answer: (w) => oversizedHeaders(w, '/scim/v2/Users'),
  },
  {
    example: `scim#/components/responses/UnexpectedBodyTooLarge${S}/example`,
    operation: 'scimDeleteUser',
    answer: (w) =>
      call(w, 'DELETE', `/scim/v2/Users/${w.scimUserId}`, {
        token: w.scimToken,
        headers: { 'content-type': 'application/scim+json' },
        body: tooLargeJson(),
      }),
  },
  {
    example: `scim#/components/responses/UnexpectedBodyType${S}/example`,
    operation: 'scimDeleteUser',
    answer: (w) =>
      call(w, 'DELETE', `/scim/v2/Users/${w.scimUserId}`, { token: w.scimToken, headers: { 'content-type': 'text/csv' }, body: 'a,b' }),
  },
];

/** The value at `<document>#<pointer>`. */
function exampleAt(location: string): unknown {
  const [name, pointer] = location.split('#') as [string, string];
  return pointer
    .split('/')
    .slice(1)
    .map((token) => token.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce<any>((node, key) => node?.[key], loadOpenApiDocument(name));
}

/** What is compared: everything but `instance`, and `detail` without the request's own values. */
function comparable(body: unknown, perRequest?: RegExp): unknown {
  if (!body || typeof body !== 'object') return body;
  const { instance: _instance, ...rest } = body as Json;
  if (perRequest && typeof rest.detail === 'string') rest.detail = rest.detail.replace(perRequest, '…');
  return rest;
}

t.test('every example error body is what the server answers', async (t) => {
  const server = await sharedServer({ env: ENV });
  const scim = await scimTenant(server, 'error-examples');
  const created = await scim.post<Json>('/Users', {
    schemas: [USER_SCHEMA],
    userName: 'bjensen@example.com',
    emails: [{ value: 'bjensen@example.com', type: 'work', primary: true }],
  });
  const admin = await server.token('error-examples-admin', ['ADMIN']);
  const product = await server.api.post<Json>('/api/v1/products', { body: productBody({ sku: 'EXAMPLE-1' }), token: admin, expect: 201 });
  const world: World = {
    server,
    admin,
    user: await server.token('error-examples-user', ['USER']),
    scimToken: scim.token,
    productId: product.body.id as string,
    scimUserId: created.body.id as string,
  };
  for (const row of ROWS) {
    const example = exampleAt(row.example);
    t.ok(example, `${row.example} exists`);
    const answer = await row.answer(world);
    t.same(comparable(answer, row.perRequest), comparable(example, row.perRequest), `${row.operation}: ${row.example}`);
  }
});

t.test('the table covers every example error body of every published document', async (t) => {
  const covered = new Map(ROWS.map((row) => [row.example.split('#')[1]!, row.example]));
  for (const name of documentNames) {
    const doc = loadOpenApiDocument(name);
    const found: string[] = [];
    const walk = (node: unknown, pointer: string) => {
      if (!node || typeof node !== 'object') return;
      const value = node as Json;
      const problem = typeof value.type === 'string' && value.type.startsWith('/problems/') && 'status' in value;
      const scimError = Array.isArray(value.schemas) && String(value.schemas[0]).endsWith(':Error') && 'detail' in value;
      if (problem || scimError) return void found.push(pointer);
      for (const [key, child] of Object.entries(value)) {
        // The Problem schema's list of problem types (type, status, title, when): no example body.
        if (key === 'x-problem-types') continue;
        walk(child, `${pointer}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`);
      }
    };
    walk(doc, '');
    for (const pointer of found) {
      const row = covered.get(pointer);
      // A shared response is the same example in every document that holds it: one row checks it.
      t.ok(row, `${name}#${pointer} has a row`);
      if (row && !row.startsWith(`${name}#`)) t.same(exampleAt(`${name}#${pointer}`), exampleAt(row), `${name}#${pointer} is ${row}`);
    }
  }
});
