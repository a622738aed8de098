// test-suite: once (role mapping rules; its second instance needs PostgreSQL)
/**
 * What a tenant grants stays inside the tenant (docs/security.md): an ADMIN that tenant acme's own
 * SCIM client and role mapping grant one of its users is acme's administrator and nobody else's;
 * the role follows the user's groups from the next request on, on every instance; and the user
 * directory lists the caller's own tenant.
 */
import t from 'tap';
import { gql, seed } from '../graphql/gql.ts';
import { onPostgres } from '../helpers/database.ts';
import { TestSamlIdp } from '../helpers/saml-idp.ts';
import { GROUP_SCHEMA, scimTenant, type ScimClient } from '../helpers/scim.ts';
import { sharedServer, startSecondInstance, type TestServer } from '../helpers/server.ts';
import { createProduct } from '../catalog/fixtures.ts';

/** Tenant `id` with a SCIM client and a role mapping `admins` → ADMIN, set by the platform operator. */
async function tenantWithAdminGroup(server: TestServer, id: string): Promise<ScimClient> {
  const scim = await scimTenant(server, id);
  const idp = await TestSamlIdp.create(`${id}-idp`);
  await server.api.put(`/api/v1/admin/tenants/${id}/identity-provider`, {
    token: await server.token('operator', ['ADMIN']),
    body: { protocol: 'saml', metadataXml: idp.metadataXml(), roleMapping: { admins: 'ADMIN' } },
    expect: 200,
  });
  return scim;
}

/** A SCIM user of the tenant, and a session of theirs (the way every sign-in ends). */
async function scimUser(server: TestServer, scim: ScimClient, userName: string) {
  const created = await scim.post('/Users', { userName, emails: [{ value: userName, primary: true }] }, { expect: 201 });
  const { token } = await server.app.services.sessions.create(created.body.id as string);
  return { id: created.body.id as string, token };
}

t.test('an ADMIN a tenant maps is that tenant’s administrator only', async (t) => {
  const server = await sharedServer();
  const operator = await server.token('operator', ['ADMIN']);
  const acme = await tenantWithAdminGroup(server, 'acme');
  const globex = await tenantWithAdminGroup(server, 'globex');
  // acme's own SCIM client makes one of its users an administrator.
  const mallory = await scimUser(server, acme, 'mallory@acme.example');
  const colleague = await scimUser(server, acme, 'colleague@acme.example');
  await acme.post('/Groups', { schemas: [GROUP_SCHEMA], displayName: 'admins', members: [{ value: mallory.id }] }, { expect: 201 });
  const outsider = await scimUser(server, globex, 'gina@globex.example');
  const token = mallory.token;

  const session = await server.api.get('/auth/session', { token, expect: 200 });
  t.match(session.body, { tenantId: 'acme', roles: ['ADMIN'], roleScope: 'tenant' }, 'the session shows where its role holds');

  t.test('platform-wide operations refuse it', async (t) => {
    await server.api.get('/api/v1/admin/tenants', { token, expect: 403 });
    await server.api.post('/api/v1/admin/tenants', { token, body: { id: 'annex', name: 'Annex' }, expect: 403 });
    const product = await createProduct(server);
    await server.api.delete(`/api/v1/products/${product.id}`, { token, expect: 403 });
    await server.api.put('/api/v1/files/config', { token, body: { settings: { pwned: true } }, expect: 403 });
  });

  t.test('its own tenant’s administration accepts it', async (t) => {
    await server.api.get('/api/v1/admin/tenants/acme', { token, expect: 200 });
    // Its tenant's webhook endpoints (decision 201): none yet.
    t.same((await server.api.get('/api/webhooks', { token, expect: 200 })).body.data, []);
    await server.api.get('/api/v1/admin/tenants/acme/identity-provider', { token, expect: 200 });
    await server.api.post('/api/v1/admin/tenants/acme/scim-tokens', { token, body: {}, expect: 201 });
    await server.api.post('/api/v1/admin/tenants/acme/domains', { token, body: { domain: 'acme.example' }, expect: 201 });
  });

  t.test('another tenant’s administration answers 404, as if it did not exist', async (t) => {
    for (const [method, path, body] of [
      ['GET', '/api/v1/admin/tenants/globex', undefined],
      ['GET', '/api/v1/admin/tenants/globex/scim-tokens', undefined],
      ['POST', '/api/v1/admin/tenants/globex/scim-tokens', {}],
      ['GET', '/api/v1/admin/tenants/globex/identity-provider', undefined],
      ['PUT', '/api/v1/admin/tenants/globex/identity-provider', { protocol: 'saml', metadataXml: '<x/>', roleMapping: {} }],
      ['DELETE', '/api/v1/admin/tenants/globex/identity-provider', undefined],
      ['POST', '/api/v1/admin/tenants/globex/domains', { domain: 'globex.example' }],
      ['GET', '/api/v1/admin/tenants/default/domains', undefined],
    ] as const) {
      const r = await server.api.call(method, path, { token, ...(body ? { body } : {}), expect: 404 });
      t.match(r.body, { status: 404, code: 'TENANT_NOT_FOUND', detail: /^Tenant not found: / }, `${method} ${path}`);
    }
    const missing = await server.api.get('/api/v1/admin/tenants/nosuch', { token: operator, expect: 404 });
    const foreign = await server.api.get('/api/v1/admin/tenants/globex', { token, expect: 404 });
    t.same({ ...foreign.body, instance: null }, { ...missing.body, detail: 'Tenant not found: globex', instance: null }, 'the same answer');
  });

  t.test('allUsers and deleteUser act on its tenant alone', async (t) => {
    const all = await gql(server, '{ allUsers { id } }', undefined, token);
    t.same(all.body.data.allUsers.map((u: { id: string }) => u.id).sort(), [mallory.id, colleague.id].sort(), 'acme’s users only');
    const foreign = await gql(server, 'mutation($id: ID!) { deleteUser(id: $id) }', { id: outsider.id }, token);
    t.match(foreign.body.errors, [{ extensions: { errorType: 'NOT_FOUND', code: 'USER_NOT_FOUND' } }]);
    t.ok(await server.app.services.users.get(outsider.id), 'globex’s user is still there');
    const own = await gql(server, 'mutation($id: ID!) { deleteUser(id: $id) }', { id: colleague.id }, token);
    t.same(own.body, { data: { deleteUser: true } });
    const everyone = await gql(server, '{ allUsers { id } }', undefined, operator);
    t.ok(
      everyone.body.data.allUsers.some((u: { id: string }) => u.id === outsider.id),
      'the platform ADMIN sees every tenant',
    );
  });

  t.test('an ADMIN of the platform’s own tenant holds platform-wide', async (t) => {
    const root = await seed(server).user('root-admin');
    const { token: rootToken } = await server.app.services.sessions.create(root.id, { roles: ['ADMIN'] });
    const roots = await server.api.get('/auth/session', { token: rootToken, expect: 200 });
    t.match(roots.body, { tenantId: 'default', roles: ['ADMIN'], roleScope: 'platform' });
    await server.api.get('/api/v1/admin/tenants', { token: rootToken, expect: 200 });
    await server.api.get('/api/v1/admin/tenants/globex/scim-tokens', { token: rootToken, expect: 200 });
  });
});

t.test('roles follow group changes at the next request', async (t) => {
  const server = await sharedServer();
  const acme = await tenantWithAdminGroup(server, 'acme');
  const ada = await scimUser(server, acme, 'ada@acme.example');
  const group = await acme.post(
    '/Groups',
    { schemas: [GROUP_SCHEMA], displayName: 'admins', members: [{ value: ada.id }] },
    { expect: 201 },
  );
  const jwt = await server.token(ada.id);
  const second = onPostgres ? await startSecondInstance(t, server) : null;
  const tenantAdminPath = '/api/v1/admin/tenants/acme/scim-tokens';
  await server.api.get(tenantAdminPath, { token: ada.token, expect: 200 });
  await server.api.get(tenantAdminPath, { token: jwt, expect: 200 });

  await acme.patch(`/Groups/${group.body.id as string}`, [{ op: 'remove', path: `members[value eq "${ada.id}"]` }], { expect: 200 });
  t.equal((await server.api.get(tenantAdminPath, { token: ada.token })).status, 403, 'the session lost the role');
  t.equal((await server.api.get(tenantAdminPath, { token: jwt })).status, 403, 'and so did a JWT naming the user');
  t.match((await server.api.get('/auth/session', { token: ada.token, expect: 200 })).body, { roles: [] });
  if (second) {
    const r = await fetch(`${second.baseUrl}${tenantAdminPath}`, { headers: { authorization: `Bearer ${ada.token}` } });
    t.equal(r.status, 403, 'on the other instance too');
  }

  await acme.patch(`/Groups/${group.body.id as string}`, [{ op: 'add', path: 'members', value: [{ value: ada.id }] }], { expect: 200 });
  await server.api.get(tenantAdminPath, { token: ada.token, expect: 200 });
});

t.test('the user directory lists the caller’s own tenant', async (t) => {
  const server = await sharedServer();
  const acme = await scimTenant(server, 'acme');
  const local = await seed(server).user('dora');
  const employee = await scimUser(server, acme, 'emma@acme.example');
  const names = (list: { id: string }[]) => list.map((u) => u.id).sort();
  const listing = '{ users(size: 50) { content { id } totalElements } searchUsers(query: "m") { id } }';

  const anonymous = await gql(server, listing);
  t.same(names(anonymous.body.data.users.content), [local.id], 'anonymous: the platform’s tenant');
  t.equal(anonymous.body.data.users.totalElements, 1);
  t.notOk(
    anonymous.body.data.searchUsers.some((u: { id: string }) => u.id === employee.id),
    'an employee of acme is not found by a stranger',
  );

  const asEmployee = await gql(server, listing, undefined, employee.token);
  t.same(names(asEmployee.body.data.users.content), [employee.id], 'an acme user: acme');
  t.same(names(asEmployee.body.data.searchUsers), [employee.id]);

  const asOperator = await gql(server, listing, undefined, await server.token('operator', ['ADMIN']));
  t.same(names(asOperator.body.data.users.content), [local.id, employee.id].sort(), 'the platform ADMIN: everyone');

  const post = await seed(server).post(employee.id, 'Published by an employee');
  const byId = await gql(server, 'query($id: ID!, $p: ID!) { user(id: $id) { id } post(id: $p) { author { id } } }', {
    id: employee.id,
    p: String(post.id),
  });
  t.same(byId.body.data, { user: { id: employee.id }, post: { author: { id: employee.id } } }, 'by id and through content: found');
});
