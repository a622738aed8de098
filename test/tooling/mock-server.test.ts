/**
 * `npm run mock`: every REST operation of every OpenAPI document answers, from the document's
 * examples, a request built from the same examples, with its first documented 2xx status and a
 * response that passes the contract check; requests are validated as the real server validates them
 * (400 Problem Details), security is enforced (401 without a token), and `Prefer: code=` picks
 * another documented response. Mock answers do not count towards contract coverage.
 */
import t from 'tap';
import { exampleOf, resolve } from '../../scripts/mock/examples.ts';
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

t.test('every operation answers its example, contract-checked', async (t) => {
  const app = await createMockServer(
    loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', AUTH_JWT_SECRET: 'mock-server-test-secret-at-least-32-characters' }),
  );
  await app.listen({ port: 0, host: '127.0.0.1' });
  t.teardown(() => app.close());
  const address = app.server.address();
  const baseUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  const registry = ContractRegistry.fromGenerated(false);

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
