// test-suite: once (what the SCIM scope records and the sweep's SQL are the same on both engines)
/**
 * SCIM provisioning activity: each request a tenant's SCIM token authenticated is recorded after
 * its answer (operation, resource, label, status, outcome, a failure's scimType and detail) and
 * listed newest first to the tenant's administrators (`listScimActivity`); another tenant's calls,
 * requests with a bad token and secrets are never in it; a failure to record fails no request; the
 * sweep keeps each tenant's newest 1,000 rows and nothing older than 30 days.
 */
import t from 'tap';
import { sql } from 'kysely';
import { sweepScimActivity } from '../../src/identity/scim/scim-activity-sweep.ts';
import { scimClient, scimTenant, USER_SCHEMA } from '../helpers/scim.ts';
import { sharedServer, type TestServer } from '../helpers/server.ts';
import { bearer, dataOf } from '../helpers/typed-client.ts';

const PASSWORD = 'Correct-Horse-Battery-Staple-42';

async function rowCount(server: TestServer, tenantId?: string): Promise<number> {
  let query = server.database.db.selectFrom('scim_activity').select((eb) => eb.fn.countAll<number>().as('n'));
  if (tenantId) query = query.where('tenant_id', '=', tenantId);
  return Number((await query.executeTakeFirstOrThrow()).n);
}

/** Rows are written after the answer: wait until the tenant has `n`. */
async function recorded(server: TestServer, tenantId: string, n: number): Promise<void> {
  const until = Date.now() + 5000;
  while ((await rowCount(server, tenantId)) < n) {
    if (Date.now() > until) throw new Error(`${tenantId}: fewer than ${n} activity rows after 5 s`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

async function activityClient(server: TestServer) {
  const root = bearer(await server.token('root', ['ADMIN']));
  return (tenantId: string, query: { page?: number; size?: number; outcome?: 'success' | 'failure' } = {}) =>
    dataOf(
      200,
      server.admin.GET('/api/v1/admin/tenants/{tenantId}/scim-activity', { params: { path: { tenantId }, query }, headers: root }),
    );
}

t.test('a provisioning session, as its administrator sees it', async (t) => {
  const server = await sharedServer();
  const acme = await scimTenant(server, 'acme');
  const globex = await scimTenant(server, 'globex');
  const activity = await activityClient(server);
  let calls = 0;
  /** Each call's row lands before the next call, so the order of the list is the order of the calls. */
  const step = async <T>(call: Promise<T>): Promise<T> => {
    const answer = await call;
    await recorded(server, 'acme', ++calls);
    return answer;
  };

  const before = Date.now();
  const ada = await step(
    acme.post('/Users', { schemas: [USER_SCHEMA], userName: 'ada@acme.example', password: PASSWORD }, { expect: 201 }),
  );
  const adaId = ada.body.id as string;
  await step(acme.post('/Users', { schemas: [USER_SCHEMA], userName: 'ADA@acme.example' }, { expect: 409 }));
  await step(acme.patch(`/Users/${adaId}`, [{ op: 'replace', path: 'displayName', value: 'Ada L.' }], { expect: 200 }));
  await step(acme.get(`/Users?filter=${encodeURIComponent('userName eq "ada@acme.example"')}`, { expect: 200 }));
  const group = await step(acme.post('/Groups', { displayName: 'Engineering', members: [{ value: adaId }] }, { expect: 201 }));
  const groupId = group.body.id as string;
  await step(acme.patch(`/Groups/${groupId}`, [{ op: 'replace', path: 'displayName', value: 'Research' }], { expect: 200 }));
  await step(acme.get('/ServiceProviderConfig', { expect: 200 }));
  await step(acme.delete(`/Users/${adaId}`, { expect: 204 }));
  await step(acme.get(`/Users/${adaId}`, { expect: 404 }));
  await step(acme.get(`/Users?filter=${encodeURIComponent('userName xx "a"')}`, { expect: 400 }));
  const bulk = await step(
    fetch(`${server.baseUrl}/scim/v2/Bulk`, {
      method: 'POST',
      headers: { authorization: `Bearer ${acme.token}`, 'content-type': 'application/scim+json' },
      body: '{}',
    }),
  );
  t.equal(bulk.status, 404, 'no bulk endpoint: a request for it is recorded as matching none');

  // Another tenant's call, and calls with no or a bad token, are not acme's.
  await globex.get('/Groups', { expect: 200 });
  await recorded(server, 'globex', 1);
  await scimClient(server, 'acme', `sfscim_${'A'.repeat(43)}`).get('/Users', { expect: 401 });
  await server.api.call('GET', '/scim/v2/Users', { headers: { 'content-type': 'application/scim+json' }, expect: 401 });
  await step(acme.get(`/Groups/${groupId}`, { expect: 200 }));

  const listed = await activity('acme', { size: 100 });
  t.same(listed.page, { number: 0, size: 100, totalElements: calls, totalPages: 1, first: true, last: true });
  const shapes = listed.content.map((a) => [a.method, a.operation, a.resourceType, a.resourceId, a.resourceLabel, a.status, a.outcome]);
  t.same(
    shapes,
    [
      ['GET', 'get', 'Group', groupId, 'Research', 200, 'success'],
      ['POST', 'other', null, null, null, 404, 'failure'],
      ['GET', 'list', 'User', null, null, 400, 'failure'],
      // A deleted user leaves no row naming them (decision 202): their id and label are cleared.
      ['GET', 'get', 'User', null, null, 404, 'failure'],
      ['DELETE', 'delete', 'User', null, null, 204, 'success'],
      ['GET', 'get', 'ServiceProviderConfig', null, null, 200, 'success'],
      ['PATCH', 'patch', 'Group', groupId, 'Research', 200, 'success'],
      ['POST', 'create', 'Group', groupId, 'Engineering', 201, 'success'],
      ['GET', 'list', 'User', null, null, 200, 'success'],
      ['PATCH', 'patch', 'User', null, null, 200, 'success'],
      ['POST', 'create', 'User', null, 'ADA@acme.example', 409, 'failure'],
      ['POST', 'create', 'User', null, null, 201, 'success'],
    ],
    'every call of the tenant, newest first, and nothing else',
  );
  const [, unrouted, badFilter, gone, deleted, , , , , , duplicate, created] = listed.content;
  t.match(duplicate, { scimType: 'uniqueness', detail: /ADA@acme\.example|userName/i }, 'the SCIM error of a failure');
  t.match(badFilter, { scimType: 'invalidFilter', detail: String });
  t.match(gone, { scimType: null, detail: 'User a deleted user not found' });
  t.notMatch(JSON.stringify(listed.content), adaId, 'the deleted user is named nowhere in the activity');
  t.match(unrouted, { scimType: null, detail: 'No SCIM endpoint POST /scim/v2/Bulk' });
  t.match(deleted, { scimType: null, detail: null });
  t.match(created, { scimType: null, detail: null }, 'a success has neither');
  const times = listed.content.map((a) => Date.parse(a.at));
  t.ok(
    times.every((at, i) => at >= before && at <= Date.now() && (i === 0 || at <= times[i - 1]!)),
    'each at is when its request arrived, in order',
  );

  const failures = await activity('acme', { outcome: 'failure' });
  t.same(
    failures.content.map((a) => a.status),
    [404, 400, 404, 409],
    'outcome=failure: the failures alone, newest first',
  );
  t.equal(failures.page.totalElements, 4);
  t.equal((await activity('acme', { outcome: 'success' })).page.totalElements, calls - 4);
  const second = await activity('acme', { size: 5, page: 1 });
  t.same(
    second.content.map((a) => a.id),
    listed.content.slice(5, 10).map((a) => a.id),
    'paged',
  );

  const theirs = await activity('globex');
  t.same(
    theirs.content.map((a) => [a.operation, a.resourceType, a.status]),
    [['list', 'Group', 200]],
    "globex's activity is its own",
  );
  t.equal(await rowCount(server), calls + 1, 'the requests without a valid token were not recorded');

  const rows = await server.database.db.selectFrom('scim_activity').selectAll().execute();
  const stored = JSON.stringify(rows);
  for (const secret of [acme.token, globex.token, PASSWORD, 'Bearer', 'sfscim_'])
    t.notOk(stored.includes(secret), `nothing stored holds ${secret.slice(0, 10)}…`);
});

t.test('a failure to record is logged, and the request answered all the same', async (t) => {
  const server = await sharedServer();
  const acme = await scimTenant(server, 'acme');
  const { scimActivity } = server.app.services;
  const record = scimActivity.record;
  let attempts = 0;
  scimActivity.record = async () => {
    attempts++;
    throw new Error('the database is gone');
  };
  t.teardown(() => {
    scimActivity.record = record;
  });
  const answer = await acme.get('/Users', { expect: 200 });
  t.equal(answer.body.totalResults, 0);
  const until = Date.now() + 5000;
  while (attempts === 0 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 5));
  t.equal(attempts, 1, 'the recording was attempted after the answer');
  scimActivity.record = record;
  await acme.get('/Users', { expect: 200 });
  await recorded(server, 'acme', 1);
});

t.test('a long SCIM error detail is cut to 300 characters', async (t) => {
  const server = await sharedServer();
  const acme = await scimTenant(server, 'acme');
  const activity = await activityClient(server);
  // The validators name every fault: thirty of them make a long detail.
  const body = { schemas: [USER_SCHEMA], userName: 'ann@acme.example', emails: Array.from({ length: 30 }, () => ({ value: 5 })) };
  const refused = await acme.post('/Users', body, { expect: 400 });
  t.ok((refused.body.detail as string).length > 300, `the answer itself has the whole detail (${refused.body.detail.length})`);
  await acme.post('/Users', { schemas: [USER_SCHEMA], userName: `${'z'.repeat(250)}@acme.example` }, { expect: 400 });
  await recorded(server, 'acme', 2);
  const [tooLong, faults] = (await activity('acme', { outcome: 'failure' })).content;
  t.equal(faults!.detail!.length, 300);
  t.match(faults!.detail, /…$/, 'marked as cut');
  t.equal(tooLong!.resourceLabel!.length, 256, 'a label is cut to 256');
});

t.test('the sweep keeps the newest 1,000 rows per tenant and nothing older than 30 days', async (t) => {
  const server = await sharedServer();
  const { db } = server.database;
  await server.app.services.tenants.create({ id: 'acme', name: 'acme' });
  await server.app.services.tenants.create({ id: 'globex', name: 'globex' });
  const row = (tenantId: string, at: Date, label: string) => ({
    tenant_id: tenantId,
    at,
    method: 'GET',
    operation: 'get',
    resource_type: 'User',
    resource_label: label,
    status: 200,
    outcome: 'success',
  });
  const now = Date.now();
  const minutesAgo = (m: number) => new Date(now - m * 60_000);
  // acme: 1,005 recent rows (minute i ago), and 3 from 31 days ago; globex: 10 recent, 1 old.
  const acmeRows = Array.from({ length: 1005 }, (_, i) => row('acme', minutesAgo(i), `recent-${i}`));
  for (let i = 0; i < acmeRows.length; i += 250)
    await db
      .insertInto('scim_activity')
      .values(acmeRows.slice(i, i + 250))
      .execute();
  await db
    .insertInto('scim_activity')
    .values([
      ...[1, 2, 3].map((i) => row('acme', new Date(now - (31 * 24 * 60 + i) * 60_000), `old-${i}`)),
      ...Array.from({ length: 10 }, (_, i) => row('globex', minutesAgo(i), `recent-${i}`)),
      row('globex', new Date(now - 31 * 24 * 60 * 60_000), 'old-0'),
      row('globex', new Date(now - 29 * 24 * 60 * 60_000), 'within-30-days'),
    ])
    .execute();

  t.equal(await sweepScimActivity(db), 5 + 3 + 1, 'five beyond the thousand, four past thirty days');
  t.equal(await rowCount(server, 'acme'), 1000);
  const kept = await db
    .selectFrom('scim_activity')
    .select(sql<string>`min(resource_label)`.as('x'))
    .where('tenant_id', '=', 'acme')
    .where('resource_label', 'like', 'old-%')
    .executeTakeFirstOrThrow();
  t.equal(kept.x, null, 'the old rows went');
  const labels = new Set(
    (await db.selectFrom('scim_activity').select('resource_label').where('tenant_id', '=', 'acme').execute()).map((r) => r.resource_label),
  );
  t.ok(labels.has('recent-0') && labels.has('recent-999'), 'the newest thousand stay');
  t.notOk(
    [1000, 1001, 1002, 1003, 1004].some((i) => labels.has(`recent-${i}`)),
    'the five oldest of them went',
  );
  t.equal(await rowCount(server, 'globex'), 11, "a small tenant keeps everything recent, not counted against another's");
  t.equal(await sweepScimActivity(db), 0, 'a second sweep has nothing to do');
});
