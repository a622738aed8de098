// test-suite: once (the admin API's rules)
/**
 * Tenants over the admin API (openapi/admin.yaml) through the typed client: create, get, list, and
 * the slug rule, which the document states for the API and migration 0008 holds for everyone else.
 */
import t from 'tap';
import { AppError } from '../../src/errors.ts';
import { sharedServer } from '../helpers/server.ts';
import { bearer, dataOf, errorOf, expectStatus } from '../helpers/typed-client.ts';

const GOOD_SLUGS = ['a', '0', 'initech', 'acme-eu-2', '9to5', 'a'.repeat(63)];
const BAD_SLUGS = ['', 'Acme', 'acme_eu', '-acme', 'acme-', 'a b', 'acmé', 'a'.repeat(64), 'acme.eu', 'acme\n'];

t.test('tenants: create, get, duplicates and the slug rule', async (t) => {
  const server = await sharedServer();
  const { admin } = server;
  const root = bearer(await server.token('root', ['ADMIN']));

  const created = await expectStatus(201, admin.POST('/api/v1/admin/tenants', { body: { id: 'acme', name: 'Acme Corp' }, headers: root }));
  t.match(created.data, { id: 'acme', name: 'Acme Corp', createdAt: String });
  t.equal(created.response.headers.get('location'), '/api/v1/admin/tenants/acme');
  t.same(
    await dataOf(200, admin.GET('/api/v1/admin/tenants/{tenantId}', { params: { path: { tenantId: 'acme' } }, headers: root })),
    created.data,
  );

  t.match(await errorOf(409, admin.POST('/api/v1/admin/tenants', { body: { id: 'acme', name: 'Another' }, headers: root })), {
    type: '/problems/conflict',
    code: 'DUPLICATE_TENANT',
  });
  t.match(await errorOf(409, admin.POST('/api/v1/admin/tenants', { body: { id: 'default', name: 'Mine' }, headers: root })), {
    code: 'DUPLICATE_TENANT',
  });

  t.match(await errorOf(404, admin.GET('/api/v1/admin/tenants/{tenantId}', { params: { path: { tenantId: 'nobody' } }, headers: root })), {
    type: '/problems/not-found',
    code: 'TENANT_NOT_FOUND',
    instance: '/api/v1/admin/tenants/nobody',
  });
  t.match(await errorOf(400, admin.GET('/api/v1/admin/tenants/{tenantId}', { params: { path: { tenantId: 'No Slug' } }, headers: root })), {
    errors: [{ field: 'path.tenantId' }],
  });

  for (const id of GOOD_SLUGS) {
    await expectStatus(201, admin.POST('/api/v1/admin/tenants', { body: { id, name: `Tenant ${id}` }, headers: root }));
  }
  for (const id of BAD_SLUGS) {
    const problem = await errorOf(400, admin.POST('/api/v1/admin/tenants', { body: { id, name: 'Bad' }, headers: root }));
    t.match(problem, { type: '/problems/validation-error', errors: [{ field: '/id' }] }, JSON.stringify(id));
  }
  t.match((await errorOf(400, admin.POST('/api/v1/admin/tenants', { body: { id: 'blank', name: '  ' }, headers: root }))).errors, [
    { field: '/name' },
  ]);
  t.match((await errorOf(400, admin.POST('/api/v1/admin/tenants', { body: { id: 'nameless' } as never, headers: root }))).errors, [
    { field: '/name' },
  ]);
  t.match(
    (
      await errorOf(
        400,
        admin.POST('/api/v1/admin/tenants', { body: { id: 'extra', name: 'X', domain: 'x.test' } as never, headers: root }),
      )
    ).errors,
    [{ field: '/domain' }],
  );
  await server.api.post('/api/v1/admin/tenants', {
    raw: 'id,name',
    headers: { 'content-type': 'text/csv' },
    token: await server.token('root', ['ADMIN']),
    expect: 415,
  });
});

t.test('the database holds the same slug rule for callers other than the API', async (t) => {
  const server = await sharedServer();
  const { tenants } = server.app.services;
  for (const id of GOOD_SLUGS) t.equal((await tenants.create({ id, name: id })).id, id);
  for (const id of BAD_SLUGS) {
    const refused = await tenants.create({ id, name: 'Bad' }).catch((error: unknown) => error);
    t.ok(refused instanceof AppError && refused.code === 'VALIDATION', `${JSON.stringify(id)} refused as a validation failure`);
    t.match(refused, { violations: [{ field: ['id'] }] });
  }
});

t.test('tenants: the default tenant, paging and sorting', async (t) => {
  const server = await sharedServer();
  const { admin } = server;
  const root = bearer(await server.token('root', ['ADMIN']));
  const list = (query: { page?: number; size?: number; sort?: string[] }) =>
    dataOf(200, admin.GET('/api/v1/admin/tenants', { params: { query }, headers: root }));

  t.match(await list({}), {
    content: [{ id: 'default', name: 'Default' }],
    page: { number: 0, size: 20, totalElements: 1, totalPages: 1 },
  });
  for (const [id, name] of [
    ['bravo', 'Zulu Inc'],
    ['alpha', 'Yankee Ltd'],
    ['charlie', 'Xray plc'],
  ]) {
    await expectStatus(201, admin.POST('/api/v1/admin/tenants', { body: { id: id!, name: name! }, headers: root }));
  }

  const byId = await list({ sort: ['id,asc'], size: 2 });
  t.same(
    byId.content.map((tenant) => tenant.id),
    ['alpha', 'bravo'],
  );
  t.same(byId.page, { number: 0, size: 2, totalElements: 4, totalPages: 2, first: true, last: false });
  const second = await list({ sort: ['id,asc'], size: 2, page: 1 });
  t.same(
    second.content.map((tenant) => tenant.id),
    ['charlie', 'default'],
  );
  t.equal(second.page.last, true);
  t.same((await list({ sort: ['id,asc'], page: 5 })).content, [], 'a page past the end is empty');
  t.same(
    (await list({ sort: ['name,asc'] })).content.map((tenant) => tenant.name),
    ['Default', 'Xray plc', 'Yankee Ltd', 'Zulu Inc'],
  );
  t.equal((await list({})).content[0]!.id, 'charlie', 'newest first by default');

  t.match((await errorOf(400, admin.GET('/api/v1/admin/tenants', { params: { query: { size: 101 } }, headers: root }))).errors, [
    { field: 'query.size' },
  ]);
  t.match((await errorOf(400, admin.GET('/api/v1/admin/tenants', { params: { query: { sort: ['secret,asc'] } }, headers: root }))).errors, [
    { field: 'query.sort' },
  ]);
});

t.test('tenants are ADMIN-only and users belong to an existing tenant', async (t) => {
  const server = await sharedServer();
  const { admin } = server;
  const user = bearer(await server.token('alice', ['USER']));
  t.match(await errorOf(401, admin.GET('/api/v1/admin/tenants')), { type: '/problems/unauthorized' });
  t.match(await errorOf(403, admin.GET('/api/v1/admin/tenants', { headers: user })), { type: '/problems/forbidden' });
  await expectStatus(403, admin.POST('/api/v1/admin/tenants', { body: { id: 'mine', name: 'Mine' }, headers: user }));

  const { db } = server.database;
  const row = { username: 'ghost', email: 'ghost@example.com', display_name: 'Ghost' };
  const inDefault = await db.insertInto('users').values(row).returning('tenant_id').executeTakeFirstOrThrow();
  t.equal(inDefault.tenant_id, 'default', 'a user without a tenant belongs to the default tenant');
  const orphan = await db
    .insertInto('users')
    .values({ ...row, username: 'orphan', email: 'orphan@example.com', tenant_id: 'nowhere' })
    .execute()
    .catch((error: { code?: string }) => error);
  t.match(orphan, { code: '23503' }, 'users.tenant_id references tenants');
});
