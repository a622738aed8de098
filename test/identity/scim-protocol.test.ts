// test-suite: once (the SCIM protocol surface)
/**
 * The /scim/v2 protocol surface: every failure is a SCIM error (application/scim+json, the Error
 * schema, `status` as a string equal to the HTTP status) — 401 for missing, malformed, unknown and
 * revoked tokens (with `WWW-Authenticate`), 404 for unknown routes, 405 for wrong methods (with
 * `Allow`), malformed JSON, 415, 413, schema and parameter violations, filter errors; both request
 * media types; paging and attribute selection of lists; and discovery stating exactly what is
 * supported.
 */
import t, { type Test } from 'tap';
import { sharedServer } from '../helpers/server.ts';
import { ERROR_SCHEMA, LIST_SCHEMA, scimTenant, USER_SCHEMA } from '../helpers/scim.ts';

t.test('SCIM protocol', async (t) => {
  const server = await sharedServer();
  const scim = await scimTenant(server, 'acme');
  const raw = async (method: string, path: string, init: { token?: string | null; type?: string; body?: string } = {}) => {
    const headers: Record<string, string> = {};
    const token = init.token === undefined ? scim.token : init.token;
    if (token !== null) headers.authorization = `Bearer ${token}`;
    if (init.type) headers['content-type'] = init.type;
    const response = await fetch(`${server.baseUrl}/scim/v2${path}`, { method, headers, body: init.body });
    const text = await response.text();
    return { response, text, body: JSON.parse(text) as Record<string, any> };
  };
  const isScimError = (t: Test, answer: Awaited<ReturnType<typeof raw>>, status: number, label: string) => {
    t.equal(answer.response.status, status, `${label}: ${answer.text}`);
    t.match(answer.response.headers.get('content-type'), /^application\/scim\+json/, `${label}: media type`);
    t.same(answer.body.schemas, [ERROR_SCHEMA], `${label}: Error schema`);
    t.equal(answer.body.status, String(status), `${label}: status as a string`);
    t.type(answer.body.detail, 'string');
  };

  await t.test('401 for every way of lacking a valid token, before routing', async (t) => {
    const revoked = await server.app.services.scimTokens.issue('acme');
    await server.app.services.scimTokens.revoke('acme', revoked.record.id);
    const jwt = await server.token('root', ['ADMIN']);
    for (const [label, token] of [
      ['no token', null],
      ['a malformed token', 'nonsense'],
      ['an unknown token', `sfscim_${'A'.repeat(43)}`],
      ['a revoked token', revoked.token],
      ['an ADMIN JWT', jwt],
    ] as const) {
      for (const [method, path] of [
        ['GET', '/Users'],
        ['POST', '/Users'],
        ['GET', '/ServiceProviderConfig'],
        ['GET', '/NoSuchEndpoint'],
      ]) {
        const answer = await raw(method!, path!, { token, type: 'application/scim+json', body: method === 'POST' ? '{}' : undefined });
        isScimError(t, answer, 401, `${label} ${method} ${path}`);
        t.equal(answer.response.headers.get('www-authenticate'), 'Bearer');
      }
    }
    const lower = await fetch(`${server.baseUrl}/scim/v2/Users`, { headers: { authorization: `bearer ${scim.token}` } });
    t.equal(lower.status, 200, 'the scheme name is case-insensitive');
  });

  await t.test('unknown routes, wrong methods, bad bodies', async (t) => {
    isScimError(t, await raw('GET', '/NoSuchEndpoint'), 404, 'unknown endpoint');
    isScimError(t, await raw('GET', '/Users/a/b'), 404, 'too deep');
    isScimError(t, await raw('GET', ''), 404, 'the prefix itself');
    isScimError(t, await raw('GET', '/'), 404, 'the prefix with a slash');
    isScimError(t, await raw('GET', '', { token: null }), 401, 'the prefix itself without a token');
    isScimError(t, await raw('GET', `/Users/${'x'.repeat(300)}`), 414, 'an overlong path segment, refused before routing');
    isScimError(t, await raw('GET', '/Users/%E0%A4%A'), 400, 'broken percent-encoding, refused before routing');
    const rest = await fetch(`${server.baseUrl}/api/v1/products/%E0%A4%A`);
    t.match(rest.headers.get('content-type'), /^application\/problem\+json/, 'other paths keep Problem Details');
    isScimError(t, await raw('POST', '/Bulk', { type: 'application/scim+json', body: '{}' }), 404, 'bulk is not supported');
    for (const [method, path, allowed] of [
      ['DELETE', '/Users', 'GET, POST'],
      ['POST', '/Users/some-id', 'DELETE, GET, PATCH, PUT'],
      ['PUT', '/ServiceProviderConfig', 'GET'],
    ] as const) {
      const answer = await raw(method, path, { type: 'application/scim+json', body: method === 'DELETE' ? undefined : '{}' });
      isScimError(t, answer, 405, `${method} ${path}`);
      t.equal(answer.response.headers.get('allow'), allowed);
    }
    for (const type of ['application/scim+json', 'application/json', 'application/scim+json; charset=utf-8']) {
      const answer = await raw('POST', '/Users', { type, body: '{"userName": ' });
      isScimError(t, answer, 400, `malformed JSON as ${type}`);
      t.equal(answer.body.scimType, 'invalidSyntax');
    }
    isScimError(t, await raw('POST', '/Users', { type: 'text/plain', body: 'userName=x' }), 415, 'text/plain');
    isScimError(t, await raw('POST', '/Users', { type: 'application/xml', body: '<user/>' }), 415, 'xml');
    const huge = JSON.stringify({ userName: 'big@example.com', displayName: 'x'.repeat(1_100_000) });
    isScimError(t, await raw('POST', '/Users', { type: 'application/scim+json', body: huge }), 413, 'too large');
    const patchWithoutSchemas = await raw('PATCH', '/Users/x', { type: 'application/scim+json', body: '{"Operations": []}' });
    isScimError(t, patchWithoutSchemas, 400, 'PatchOp without schemas');
    t.equal(patchWithoutSchemas.body.scimType, 'invalidSyntax');
    const notAnObject = await raw('POST', '/Users', { type: 'application/json', body: '["x"]' });
    isScimError(t, notAnObject, 400, 'a JSON array as a user');
  });

  await t.test('both request media types; parameters and filters', async (t) => {
    const asJson = await scim.post(
      '/Users',
      { userName: 'json@example.com' },
      { headers: { 'content-type': 'application/json' }, expect: 201 },
    );
    t.match(asJson.headers.get('content-type'), /^application\/scim\+json/, 'answered in application/scim+json');
    await scim.post('/Users', { userName: 'scim@example.com' }, { expect: 201 });
    await scim.post('/Users', { userName: 'third@example.com' }, { expect: 201 });

    const page = await scim.get('/Users?startIndex=2&count=1', { expect: 200 });
    t.match(page.body, { schemas: [LIST_SCHEMA], totalResults: 3, startIndex: 2, itemsPerPage: 1 });
    t.equal(page.body.Resources[0].userName, 'scim@example.com', 'in creation order');
    t.match((await scim.get('/Users?count=0')).body, { totalResults: 3, itemsPerPage: 0, Resources: [] });
    t.match(
      (await scim.get('/Users?startIndex=-5&count=100000')).body,
      { startIndex: 1, itemsPerPage: 3 },
      'out-of-range paging is brought into range',
    );
    const sorted = await scim.get('/Users?sortBy=userName&sortOrder=descending');
    t.same(
      sorted.body.Resources.map((u: { userName: string }) => u.userName),
      ['third@example.com', 'scim@example.com', 'json@example.com'],
    );
    const projected = await scim.get(`/Users?attributes=userName&filter=${encodeURIComponent('userName eq "JSON@example.com"')}`);
    t.same(projected.body.Resources, [
      { schemas: [USER_SCHEMA], id: asJson.body.id, userName: 'json@example.com', meta: { resourceType: 'User' } },
    ]);
    const excluded = await scim.get(`/Users/${asJson.body.id}?excludedAttributes=emails,name`);
    t.notOk('emails' in excluded.body);
    t.equal(excluded.body.userName, 'json@example.com');

    for (const [query, scimType] of [
      ['count=many', 'invalidValue'],
      ['sortOrder=sideways', 'invalidValue'],
      ['sortBy=noSuchAttribute', 'invalidValue'],
      [`filter=${encodeURIComponent('userName eq "a" and (')}`, 'invalidFilter'],
      [`filter=${encodeURIComponent('noSuchAttribute eq "a"')}`, 'invalidFilter'],
      [`filter=${encodeURIComponent("userName eq 'x'; drop table users; --")}`, 'invalidFilter'],
    ] as const) {
      const answer = await scim.get(`/Users?${query}`, { expect: 400 });
      t.equal(answer.body.scimType, scimType, query);
    }
    t.equal((await scim.get('/Users')).body.totalResults, 3, 'still there');
  });

  await t.test('discovery states what is supported', async (t) => {
    const config = (await scim.get('/ServiceProviderConfig', { expect: 200 })).body;
    t.match(config, {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig'],
      patch: { supported: true },
      bulk: { supported: false },
      filter: { supported: true, maxResults: 200 },
      changePassword: { supported: false },
      sort: { supported: true },
      etag: { supported: true },
      authenticationSchemes: [{ type: 'oauthbearertoken' }],
    });
    const types = (await scim.get('/ResourceTypes', { expect: 200 })).body;
    t.equal(types.totalResults, 2);
    const user = (await scim.get('/ResourceTypes/User', { expect: 200 })).body;
    t.match(user, {
      name: 'User',
      endpoint: '/Users',
      schema: USER_SCHEMA,
      schemaExtensions: [{ schema: 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User', required: false }],
    });
    t.match((await scim.get('/ResourceTypes/Group')).body, { endpoint: '/Groups' });
    await scim.get('/ResourceTypes/Printer', { expect: 404 });
    const schemas = (await scim.get('/Schemas', { expect: 200 })).body;
    t.same(
      schemas.Resources.map((s: { id: string }) => s.id),
      [USER_SCHEMA, 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User', 'urn:ietf:params:scim:schemas:core:2.0:Group'],
    );
    const userSchema = (await scim.get(`/Schemas/${USER_SCHEMA}`, { expect: 200 })).body;
    t.match(
      userSchema.attributes.find((a: { name: string }) => a.name === 'userName'),
      { type: 'string', required: true, caseExact: false, mutability: 'readWrite', uniqueness: 'server' },
    );
    t.match(
      userSchema.attributes.find((a: { name: string }) => a.name === 'groups'),
      { mutability: 'readOnly', multiValued: true },
    );
    t.notOk(
      userSchema.attributes.some((a: { name: string }) => ['password', 'phoneNumbers', 'addresses'].includes(a.name)),
      'only what is supported is described',
    );
    await scim.get('/Schemas/urn:example:nothing', { expect: 404 });
  });

  await t.test(
    'a required value missing, empty or too long is invalidValue; a value of the wrong JSON type is invalidSyntax',
    async (t) => {
      const user = (await scim.post('/Users', { userName: 'required@example.com' }, { expect: 201 })).body;
      const group = (await scim.post('/Groups', { displayName: 'Required' }, { expect: 201 })).body;
      const refusals: [label: string, send: () => Promise<{ body: Record<string, any> }>, scimType: string][] = [];
      for (const [resource, path, attribute] of [
        ['Users', `/Users/${user.id}`, 'userName'],
        ['Groups', `/Groups/${group.id}`, 'displayName'],
      ] as const) {
        for (const [what, body] of [
          ['missing', {}],
          ['empty', { [attribute]: '' }],
          ['blank', { [attribute]: '   ' }],
          ['longer than 256 characters', { [attribute]: 'x'.repeat(257) }],
        ] as const) {
          refusals.push([
            `POST /${resource}, ${attribute} ${what}`,
            () => scim.post(`/${resource}`, body, { expect: 400 }),
            'invalidValue',
          ]);
          refusals.push([`PUT ${resource}, ${attribute} ${what}`, () => scim.put(path, body, { expect: 400 }), 'invalidValue']);
        }
        const replace = (operation: Record<string, unknown>) => () => scim.patch(path, [{ op: 'replace', ...operation }], { expect: 400 });
        refusals.push([`PATCH ${resource}, replace ${attribute} with ""`, replace({ path: attribute, value: '' }), 'invalidValue']);
        refusals.push([`PATCH ${resource}, replace {${attribute}: ""}`, replace({ value: { [attribute]: '' } }), 'invalidValue']);
        refusals.push([
          `POST /${resource}, ${attribute} a number`,
          () => scim.post(`/${resource}`, { [attribute]: 5 }, { expect: 400 }),
          'invalidSyntax',
        ]);
        refusals.push([
          `PUT ${resource}, ${attribute} null`,
          () => scim.put(path, { [attribute]: null }, { expect: 400 }),
          'invalidSyntax',
        ]);
      }
      refusals.push([
        'POST /Users, emails a string',
        () => scim.post('/Users', { userName: 'typed@example.com', emails: 'x' }, { expect: 400 }),
        'invalidSyntax',
      ]);
      refusals.push([
        'POST /Users, an empty userName beside emails of the wrong type',
        () => scim.post('/Users', { userName: '', emails: 'x' }, { expect: 400 }),
        'invalidSyntax',
      ]);
      for (const [label, send, scimType] of refusals) {
        const answer = await send();
        t.equal(answer.body.scimType, scimType, `${label}: ${answer.body.detail}`);
      }
      t.match(
        (await scim.get(`/Users/${user.id}`)).body,
        { userName: 'required@example.com', meta: { version: 'W/"1"' } },
        'the user is unchanged',
      );
      t.match(
        (await scim.get(`/Groups/${group.id}`)).body,
        { displayName: 'Required', meta: { version: 'W/"1"' } },
        'the group is unchanged',
      );
    },
  );
});
