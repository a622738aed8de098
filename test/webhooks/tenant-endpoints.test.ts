/**
 * Webhook endpoints of a tenant (issue 44 item 3): a tenant's ADMIN manages its tenant's endpoints
 * and nothing else; a platform ADMIN manages every one; and the outbox's fan-out gives a tenant's
 * event to that tenant's endpoints and to platform endpoints with `all_tenants` only, never to
 * another tenant's (a `*` subscription included), and a platform event to platform endpoints only.
 */
import t from 'tap';
import { EVENT_AUDIENCE, EVENT_TYPES } from '../../generated/openapi/webhooks.events.ts';
import { inTransaction } from '../../src/db/transaction.ts';
import { recordEvent, type NewEvent } from '../../src/webhooks/outbox.repository.ts';
import { sharedServer, type TestServer } from '../helpers/server.ts';

const ENV = { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' };

/** A session of a new user of `tenantId` whose session roles are `roles` (tenant roles: decision 146). */
async function tenantAdmin(server: TestServer, tenantId: string, name: string): Promise<string> {
  const user = await server.database.db
    .insertInto('users')
    .values({ tenant_id: tenantId, username: name, email: `${name}@${tenantId}.example`, display_name: name })
    .returning('id')
    .executeTakeFirstOrThrow();
  return (await server.app.services.sessions.create(user.id, { roles: ['ADMIN'] })).token;
}

async function world(server: TestServer) {
  await server.database.db
    .insertInto('tenants')
    .values([
      { id: 'acme', name: 'Acme' },
      { id: 'globex', name: 'Globex' },
    ])
    .execute();
  return {
    platform: await server.token('platform-operator', ['ADMIN']),
    acme: await tenantAdmin(server, 'acme', 'acme-admin'),
    globex: await tenantAdmin(server, 'globex', 'globex-admin'),
  };
}

const register = (server: TestServer, token: string, name: string, extra: Record<string, unknown> = {}, expect = 201) =>
  server.api.post('/api/webhooks', { token, body: { url: `https://127.0.0.1:9/${name}`, events: ['*'], ...extra }, expect });

t.test('a tenant ADMIN manages its own endpoints only; the platform ADMIN every one', async (t) => {
  const server = await sharedServer({ env: ENV });
  const token = await world(server);

  const acmeHook = (await register(server, token.acme, 'acme')).body;
  t.match(acmeHook, { tenant_id: 'acme', all_tenants: false }, "a tenant ADMIN's endpoint is its tenant's");
  const globexHook = (await register(server, token.globex, 'globex')).body;
  const platformHook = (await register(server, token.platform, 'platform')).body;
  t.match(platformHook, { tenant_id: null, all_tenants: false }, "a platform ADMIN's endpoint is the platform's");

  const listed = async (as: string) =>
    ((await server.api.get('/api/webhooks', { token: as, expect: 200 })).body.data as { id: string }[]).map((e) => e.id).sort();
  t.same(await listed(token.acme), [acmeHook.id], 'acme lists its own');
  t.same(await listed(token.platform), [acmeHook.id, globexHook.id, platformHook.id].sort(), 'the platform ADMIN lists every one');

  for (const [what, id] of [
    ["globex's endpoint", globexHook.id],
    ['a platform endpoint', platformHook.id],
  ] as const) {
    await server.api.get(`/api/webhooks/${id}`, { token: token.acme, expect: 404 });
    await server.api.patch(`/api/webhooks/${id}`, { token: token.acme, body: { description: 'mine now' }, expect: 404 });
    await server.api.post(`/api/webhooks/${id}/rotate-secret`, { token: token.acme, body: {}, expect: 404 });
    await server.api.get(`/api/webhooks/${id}/health`, { token: token.acme, expect: 404 });
    await server.api.delete(`/api/webhooks/${id}`, { token: token.acme, expect: 404 });
    t.pass(`${what}: 404 to acme's ADMIN for read, change, rotate, health and delete`);
  }
  const stillThere = await server.api.get(`/api/webhooks/${globexHook.id}`, { token: token.platform, expect: 200 });
  t.equal(stillThere.body.description, null, "globex's endpoint is unchanged");
  await server.api.patch(`/api/webhooks/${acmeHook.id}`, { token: token.acme, body: { description: 'ours' }, expect: 200 });
  await server.api.patch(`/api/webhooks/${acmeHook.id}`, { token: token.platform, body: { description: 'seen' }, expect: 200 });
});

t.test('who may choose the tenant, and every tenant', async (t) => {
  const server = await sharedServer({ env: ENV });
  const token = await world(server);
  const field = (body: { errors?: { field: string }[] }) => body.errors?.map((e) => e.field);

  const allTenants = await register(server, token.acme, 'a', { all_tenants: true }, 400);
  t.same(field(allTenants.body), ['/all_tenants'], "a tenant's endpoint cannot receive every tenant's events");
  const otherTenant = await register(server, token.acme, 'b', { tenant_id: 'globex' }, 400);
  t.same(field(otherTenant.body), ['/tenant_id'], "a tenant's ADMIN cannot register another tenant's endpoint");
  t.match((await register(server, token.acme, 'c', { tenant_id: 'acme' })).body, { tenant_id: 'acme' }, 'naming its own is fine');

  t.match(
    (await register(server, token.platform, 'd', { tenant_id: 'acme' })).body,
    { tenant_id: 'acme' },
    "the platform ADMIN registers acme's",
  );
  const unknown = await register(server, token.platform, 'e', { tenant_id: 'nobody' }, 400);
  t.same(field(unknown.body), ['/tenant_id'], 'an unknown tenant names the field');
  const both = await register(server, token.platform, 'f', { tenant_id: 'acme', all_tenants: true }, 400);
  t.same(field(both.body), ['/all_tenants']);
  const everyTenant = (await register(server, token.platform, 'g', { all_tenants: true })).body;
  t.match(everyTenant, { tenant_id: null, all_tenants: true });

  const platformType = await register(server, token.acme, 'i', { events: ['user.created', 'order.created'] }, 400);
  t.same(field(platformType.body), ['/events'], "a tenant's endpoint cannot subscribe to a platform type");
  t.match((await register(server, token.platform, 'j', { events: ['user.created', 'order.created'] })).body, {
    events: ['order.created', 'user.created'],
  });
  const acmeOwn = (await register(server, token.acme, 'h')).body;
  const wrongTest = await server.api.post(`/api/webhooks/${acmeOwn.id}/test`, {
    token: token.acme,
    body: { event_type: 'order.created' },
    expect: 400,
  });
  t.same(field(wrongTest.body), ['/event_type'], 'nor be sent a test event of one');
  const wrongChange = await server.api.patch(`/api/webhooks/${acmeOwn.id}`, {
    token: token.platform,
    body: { events: ['product.created'] },
    expect: 400,
  });
  t.same(field(wrongChange.body), ['/events'], 'nor be changed to one, even by the platform ADMIN');
  const changed = await server.api.patch(`/api/webhooks/${acmeOwn.id}`, {
    token: token.platform,
    body: { all_tenants: true },
    expect: 400,
  });
  t.same(field(changed.body), ['/all_tenants'], 'nor can a change make a tenant endpoint receive every tenant');
});

t.test('the fan-out: a tenant event reaches its tenant and all_tenants platform endpoints, never another tenant', async (t) => {
  const server = await sharedServer({ env: ENV });
  const token = await world(server);
  const hook = {
    acme: (await register(server, token.acme, 'acme')).body.id as string,
    globex: (await register(server, token.globex, 'globex')).body.id as string,
    platform: (await register(server, token.platform, 'platform')).body.id as string,
    everyTenant: (await register(server, token.platform, 'every', { all_tenants: true })).body.id as string,
  };
  const db = server.database.db;
  const reached = async (eventId: string) =>
    (await db.selectFrom('webhook_deliveries').select('endpoint_id').where('event_id', '=', eventId).execute())
      .map((d) => Object.entries(hook).find(([, id]) => id === d.endpoint_id)?.[0] ?? d.endpoint_id)
      .sort();
  const event = (tenantId: string | null): NewEvent => ({
    type: tenantId === null ? 'order.created' : 'user.created',
    resourceType: tenantId === null ? 'order' : 'user',
    resourceId: `resource-of-${tenantId ?? 'platform'}`,
    sequence: 1,
    object: { id: 'x' },
    resourcePath: null,
    tenantId,
  });

  const acmeEvent = await inTransaction(db, (trx) => recordEvent(trx, event('acme')));
  t.same(await reached(acmeEvent), ['acme', 'everyTenant'], "acme's event: acme's endpoint and the all_tenants one");
  const globexEvent = await inTransaction(db, (trx) => recordEvent(trx, event('globex')));
  t.same(await reached(globexEvent), ['everyTenant', 'globex']);
  const platformEvent = await inTransaction(db, (trx) => recordEvent(trx, event(null)));
  t.same(await reached(platformEvent), ['everyTenant', 'platform'], 'a platform event: platform endpoints only');

  const before = await db
    .selectFrom('webhook_events')
    .select((e) => e.fn.countAll<string>().as('n'))
    .executeTakeFirstOrThrow();
  await t.rejects(
    inTransaction(db, async (trx) => {
      await recordEvent(trx, event('acme'));
      throw new Error('the change failed');
    }),
    /the change failed/,
  );
  const after = await db
    .selectFrom('webhook_events')
    .select((e) => e.fn.countAll<string>().as('n'))
    .executeTakeFirstOrThrow();
  t.equal(Number(after.n), Number(before.n), 'a rolled-back change records no event and queues nothing');

  const test = await server.api.post(`/api/webhooks/${hook.acme}/test`, {
    token: token.acme,
    body: { event_type: 'user.created' },
    expect: 202,
  });
  const stored = await db.selectFrom('webhook_events').select('tenant_id').where('id', '=', test.body.event_id).executeTakeFirstOrThrow();
  t.equal(stored.tenant_id, 'acme', "a test event belongs to its endpoint's tenant");

  // Deleting the tenant deletes its endpoints (and their queued deliveries).
  await db.deleteFrom('webhook_deliveries').where('endpoint_id', '=', hook.globex).execute();
  await db.deleteFrom('users').where('tenant_id', '=', 'globex').execute();
  await db.deleteFrom('tenants').where('id', '=', 'globex').execute();
  t.notOk(
    await db.selectFrom('webhook_endpoints').select('id').where('id', '=', hook.globex).executeTakeFirst(),
    "globex's endpoint went with it",
  );
});

t.test('the event types each caller can subscribe to: the catalog as data', async (t) => {
  const server = await sharedServer({ env: ENV });
  const token = await world(server);
  const typesFor = async (as: string) =>
    (await server.api.get('/api/webhooks/event-types', { token: as, expect: 200 })).body.data as {
      type: string;
      summary: string;
      audience: string;
      example: { type?: string };
    }[];
  const platform = await typesFor(token.platform);
  t.same(
    platform.map((entry) => entry.type),
    [...EVENT_TYPES],
    'the platform ADMIN: every type, in the catalog order',
  );
  for (const entry of platform) {
    t.equal(entry.example.type, entry.type, `${entry.type}: its example is an event of its type`);
    t.ok(entry.summary.length > 0, `${entry.type}: with its summary`);
  }
  const tenant = await typesFor(token.acme);
  t.same(
    tenant.map((entry) => entry.type),
    EVENT_TYPES.filter((type) => EVENT_AUDIENCE[type] === 'tenant'),
    "a tenant's ADMIN: the types a tenant's endpoints receive",
  );
  t.ok(tenant.length > 0 && tenant.length < platform.length);
  // What the list offers, registration accepts; what it leaves out, registration refuses.
  await register(server, token.acme, 'offered', { events: tenant.map((entry) => entry.type).slice(0, 20) });
  const left = platform.find((entry) => entry.audience === 'platform')!.type;
  await register(server, token.acme, 'not-offered', { events: [left] }, 400);
});
