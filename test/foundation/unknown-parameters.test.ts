// test-suite: once (parameter validation before any handler runs)
/**
 * A query parameter an operation does not declare is a 400 naming it, on every operation of every
 * published document, so a misspelt parameter (`pagesize`) never passes silently.
 */
import { randomUUID } from 'node:crypto';
import t from 'tap';
import { documentNames } from '../../generated/openapi/index.ts';
import { loadOpenApiDocument } from '../../src/http/openapi-docs.ts';
import { sharedServer } from '../helpers/server.ts';
import { SERVED_METHODS } from '../../src/http/openapi-methods.ts';

function resolve(doc: any, value: any): any {
  return value?.$ref
    ? value.$ref
        .slice(2)
        .split('/')
        .reduce((n: any, k: string) => n[k], doc)
    : value;
}

/** A well-formed value for a path parameter, so only the unknown query parameter is at fault. */
function pathValue(schema: any): string {
  if (schema?.format === 'uuid') return randomUUID();
  if (schema?.pattern?.includes('json|yaml')) return 'ops.json';
  return 'x';
}

t.test('every operation refuses an undeclared query parameter with a 400 naming it', async (t) => {
  const server = await sharedServer();
  const admin = await server.token('root', ['ADMIN']);
  const { token: scimToken } = await server.app.services.scimTokens.issue('default');
  // The portal's own routes take its session cookie only: one opened as a browser would.
  await server.api.post('/api/v1/admin/tenants', { token: admin, body: { id: 'unknown-params', name: 'Unknown parameters' }, expect: 201 });
  const link = await server.api.post('/api/v1/admin/tenants/unknown-params/portal-links', {
    token: admin,
    body: { intents: ['sso'] },
    expect: 201,
  });
  const opened = await server.api.post('/portal/session', {
    body: { link: new URL(link.body.url as string).hash.slice('#link='.length) },
    expect: 201,
  });
  const portal = {
    cookie: opened.headers
      .getSetCookie()
      .find((line) => line.startsWith('sf_portal='))!
      .split(';')[0]!,
    origin: new URL(server.config.baseUrl).origin,
  };
  let tried = 0;
  for (const name of documentNames) {
    const doc = loadOpenApiDocument(name);
    for (const [template, item] of Object.entries<any>(doc.paths)) {
      for (const method of SERVED_METHODS) {
        const op = item[method];
        if (!op) continue;
        const params = [...(item.parameters ?? []), ...(op.parameters ?? [])].map((p: any) => resolve(doc, p));
        let path = template;
        for (const p of params.filter((p: any) => p.in === 'path')) path = path.replace(`{${p.name}}`, pathValue(p.schema));
        const json = resolve(doc, op.requestBody)?.content?.['application/json'];
        const portalOnly = (op.security ?? []).length > 0 && op.security.every((r: object) => 'portalSession' in r);
        const credential = portalOnly ? { headers: portal } : { token: name === 'scim' ? scimToken : admin };
        const r = await server.api.call(method.toUpperCase(), `${path}?pagesize=5`, { ...credential, ...(json ? { body: {} } : {}) });
        t.equal(r.status, 400, `${name} ${op.operationId}`);
        tried += 1;
        if (name === 'scim') {
          // SCIM answers in its own error format (RFC 7644 §3.12), naming the parameter in `detail`.
          t.equal(r.body.scimType, 'invalidValue', `${op.operationId} scimType`);
          t.match(r.body.detail, /pagesize: is not a parameter of this operation/, `${op.operationId} names pagesize`);
          continue;
        }
        t.equal(r.body.type, '/problems/validation-error', `${op.operationId} type`);
        const violation = r.body.errors?.find((e: { field: string }) => e.field === 'query.pagesize');
        t.match(violation?.message, /^is not a parameter of this operation/, `${op.operationId} names query.pagesize`);
      }
    }
  }
  t.ok(tried >= 35, `${tried} operations tried`);

  t.test('the message lists what the operation accepts', async (t) => {
    const r = await server.api.get('/api/v1/products?pagesize=5', { expect: 400 });
    t.same(r.body.errors, [
      { field: 'query.pagesize', message: 'is not a parameter of this operation; accepted: page, size, sort, format' },
    ]);
    // A parameter that the operation beside it takes: the message names that operation.
    const search = await server.api.get('/api/v1/products?q=lamp', { expect: 400 });
    t.same(search.body.errors, [
      {
        field: 'query.q',
        message: 'is not a parameter of this operation; accepted: page, size, sort, format; GET /api/v1/products/search takes it',
      },
    ]);
    const v2 = await server.api.get('/api/v2/products?q=lamp', { expect: 400 });
    t.match(v2.body.errors?.[0]?.message, /; GET \/api\/v2\/products\/search takes it$/, 'in v2 too');
    const none = await server.api.get('/healthz?verbose=1', { expect: 400 });
    t.same(none.body.errors, [{ field: 'query.verbose', message: 'is not a parameter of this operation; it takes no query parameters' }]);
  });

  t.test('without a token a protected operation is refused before its parameters are validated', async (t) => {
    const r = await server.api.get('/api/v1/orders?pagesize=5', { expect: 401 });
    t.equal(r.headers.get('www-authenticate'), 'Bearer');
    t.equal(r.body.errors, undefined);
  });

  t.test('declared parameters, format included, still pass', async (t) => {
    for (const path of ['/api/v1/products?page=0&size=5&sort=name,asc&format=json', '/posts?limit=5', '/openapi/ops.json']) {
      t.equal((await server.api.get(path)).status, 200, path);
    }
  });
});
