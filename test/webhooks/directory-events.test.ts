// test-suite: once (the events are written by the services' transactions and fanned out by one statement, the same on both engines)
/**
 * Directory events (issue 44 item 2): an Okta-style and an Entra-style SCIM provisioning run against
 * tenant acme (create, update, deactivate, group create, add and remove members, delete) produce
 * exactly the expected events, in per-resource order, each valid against its catalog schema, at
 * acme's endpoint; globex's endpoint (`*`) and a platform endpoint without `all_tenants` receive
 * none of them, while globex's endpoint does receive globex's own. A refused SCIM write emits
 * nothing. The other doors (GraphQL createUser/updateUser/deleteUser) emit the same types.
 */
import t from 'tap';
import { ContractRegistry } from '../helpers/contract.ts';
import { ENTERPRISE, GROUP_SCHEMA, scimTenant, USER_SCHEMA } from '../helpers/scim.ts';
import type { TestServer } from '../helpers/server.ts';
import { startReceiver, type ReceivedRequest } from '../helpers/webhook-receiver.ts';
import { gql } from '../graphql/gql.ts';
import { startWebhookServer } from './webhook-fixtures.ts';

const contract = ContractRegistry.fromGenerated(false);

interface Received {
  type: string;
  resource: string;
  sequence: number | undefined;
  tenant: string | undefined;
  body: Record<string, any>;
}

function parse(request: ReceivedRequest): Received {
  const body = JSON.parse(request.rawBody) as Record<string, any>;
  // Every delivery must be what the catalog documents for its type.
  contract.validateWebhook(body.type as string, body);
  const object = body.data.object ?? {};
  return {
    type: body.type,
    resource: (object.groupId as string | undefined) ?? (object.id as string),
    sequence: body.sequence,
    tenant: body.tenant_id,
    body,
  };
}

/** A session of a new user of `tenantId` holding ADMIN there (session roles are tenant roles). */
async function tenantAdmin(server: TestServer, tenantId: string): Promise<string> {
  const user = await server.database.db
    .insertInto('users')
    .values({ tenant_id: tenantId, username: `admin-${tenantId}`, email: `admin@${tenantId}.example`, display_name: 'Admin' })
    .returning('id')
    .executeTakeFirstOrThrow();
  return (await server.app.services.sessions.create(user.id, { roles: ['ADMIN'] })).token;
}

const user = (userName: string, externalId: string, extra: Record<string, unknown> = {}) => ({
  schemas: [USER_SCHEMA],
  userName,
  externalId,
  name: { givenName: 'Jane', familyName: 'Doe' },
  emails: [{ value: userName, type: 'work', primary: true }],
  active: true,
  ...extra,
});

/** The events received for one resource, in arrival order, as `type@sequence`. */
const byResource = (received: Received[], id: string) => received.filter((r) => r.resource === id).map((r) => `${r.type}@${r.sequence}`);

t.test('Okta- and Entra-style provisioning of tenant acme: exactly its events, at its endpoint only', async (t) => {
  const server = await startWebhookServer(t);
  const acme = await scimTenant(server, 'acme');
  const globex = await scimTenant(server, 'globex');
  const [acmeReceiver, globexReceiver, platformReceiver] = await Promise.all([startReceiver(t), startReceiver(t), startReceiver(t)]);
  const register = (token: string, origin: string) =>
    server.api.post('/api/webhooks', { token, body: { url: `${origin}/hooks`, events: ['*'] }, expect: 201 });
  await register(await tenantAdmin(server, 'acme'), acmeReceiver.origin);
  await register(await tenantAdmin(server, 'globex'), globexReceiver.origin);
  await register(server.admin_token, platformReceiver.origin);
  const adminEvents = acmeReceiver.requests.length;

  // Okta: create, profile push (path-less replace), deactivate, group push with members added and removed.
  const jane = (await acme.post('/Users', user('jane@acme.example', 'okta-jane'), { expect: 201 })).body;
  await acme.patch(`/Users/${jane.id}`, [{ op: 'replace', value: { name: { givenName: 'Janet', familyName: 'Doe' } } }], { expect: 200 });
  const engineering = (await acme.post('/Groups', { schemas: [GROUP_SCHEMA], displayName: 'Engineering', members: [] }, { expect: 201 }))
    .body;
  await acme.patch(`/Groups/${engineering.id}`, [{ op: 'add', path: 'members', value: [{ value: jane.id }] }], { expect: 200 });
  await acme.patch(`/Groups/${engineering.id}`, [{ op: 'remove', path: `members[value eq "${jane.id}"]` }], { expect: 200 });
  await acme.patch(`/Users/${jane.id}`, [{ op: 'replace', value: { active: false } }], { expect: 200 });
  await acme.delete(`/Users/${jane.id}`, { expect: 204 });

  // Entra ID: strings for booleans, capitalised ops, the enterprise extension, a group with a first member.
  const john = (
    await acme.post('/Users', user('john@acme.example', 'entra-john', { [ENTERPRISE]: { department: 'Sales' } }), { expect: 201 })
  ).body;
  const sales = (
    await acme.post(
      '/Groups',
      { schemas: [GROUP_SCHEMA], displayName: 'Sales', externalId: 'entra-sales', members: [{ value: john.id }] },
      { expect: 201 },
    )
  ).body;
  await acme.patch(`/Users/${john.id}`, [{ op: 'Replace', path: 'active', value: 'False' }], { expect: 200 });
  await acme.patch(`/Users/${john.id}`, [{ op: 'Replace', path: 'active', value: 'True' }], { expect: 200 });
  await acme.patch(`/Groups/${sales.id}`, [{ op: 'Replace', path: 'displayName', value: 'Sales EMEA' }], { expect: 200 });
  await acme.patch(`/Groups/${sales.id}`, [{ op: 'Remove', path: 'members', value: [{ value: john.id }] }], { expect: 200 });
  await acme.delete(`/Groups/${sales.id}`, { expect: 204 });

  // Refused writes emit nothing: a duplicate userName (409) and an unknown member (400).
  await acme.post('/Users', user('john@acme.example', 'entra-john-2'), { expect: 409 });
  await acme.patch(`/Groups/${engineering.id}`, [{ op: 'add', path: 'members', value: [{ value: 'nobody' }] }], { expect: 400 });

  const expected = {
    [jane.id]: ['user.created@1', 'user.updated@2', 'user.updated@3', 'user.deactivated@3', 'user.deleted@4'],
    [engineering.id]: ['group.created@1', 'group.member_added@2', 'group.member_removed@3'],
    [john.id]: ['user.created@1', 'user.updated@2', 'user.deactivated@2', 'user.updated@3', 'user.reactivated@3'],
    [sales.id]: ['group.created@1', 'group.member_added@1', 'group.updated@2', 'group.member_removed@3', 'group.deleted@4'],
  };
  const total = Object.values(expected).flat().length;
  const received = (await acmeReceiver.waitFor(adminEvents + total, 15_000)).slice(adminEvents).map(parse);
  await new Promise((resolve) => setTimeout(resolve, 300));
  t.equal(acmeReceiver.requests.length, adminEvents + total, `acme's endpoint got exactly ${total} events, no more`);
  for (const [id, events] of Object.entries(expected)) t.same(byResource(received, id), events, `in order for ${id}`);
  t.ok(
    received.every((r) => r.tenant === 'acme'),
    'each says its tenant',
  );
  t.match(received.find((r) => r.type === 'user.created' && r.resource === jane.id)!.body.data.object, {
    id: jane.id,
    tenantId: 'acme',
    username: 'jane@acme.example',
    givenName: 'Jane',
    active: true,
    source: 'scim',
  });
  const deactivated = received.find((r) => r.type === 'user.deactivated' && r.resource === jane.id)!;
  t.same(deactivated.body.data.previous_attributes, { active: true });
  t.same(received.find((r) => r.type === 'group.updated')!.body.data.previous_attributes, { displayName: 'Sales' });

  t.equal(globexReceiver.requests.length, 0, "globex's `*` endpoint received none of acme's events");
  t.equal(platformReceiver.requests.length, 0, 'nor did a platform endpoint without all_tenants');
  const outsider = (await globex.post('/Users', user('max@globex.example', 'okta-max'), { expect: 201 })).body;
  const [globexOwn] = (await globexReceiver.waitFor(1)).map(parse);
  t.match(globexOwn, { type: 'user.created', resource: outsider.id, tenant: 'globex' }, "globex's endpoint receives globex's own");
  t.equal(acmeReceiver.requests.length, adminEvents + total, "and acme's receives none of globex's");
});

t.test('GraphQL createUser, updateUser and deleteUser emit the same types', async (t) => {
  const server = await startWebhookServer(t);
  const receiver = await startReceiver(t);
  await server.api.post('/api/webhooks', {
    token: server.admin_token,
    body: { url: `${receiver.origin}/hooks`, events: ['user.created', 'user.updated', 'user.deleted'], all_tenants: true },
    expect: 201,
  });
  const created = await gql(
    server,
    'mutation { createUser(input: { username: "graphy", email: "graphy@example.com", displayName: "GQ" }) { id } }',
  );
  t.notOk(created.body.errors, JSON.stringify(created.body.errors));
  const id = created.body.data.createUser.id as string;
  const token = await server.token(id);
  await gql(server, `mutation { updateUser(id: "${id}", input: { bio: "hello" }) { id } }`, undefined, token);
  await gql(server, `mutation { updateUser(id: "${id}", input: { displayName: "GQ 2" }) { id } }`, undefined, token);
  await gql(server, `mutation { deleteUser(id: "${id}") }`, undefined, server.admin_token);
  const received = (await receiver.waitFor(3)).map(parse);
  t.same(
    received.map((r) => `${r.type}@${r.sequence}`),
    ['user.created@1', 'user.updated@3', 'user.deleted@4'],
    'a bio change moves the version (2) but shows nothing a directory event carries: no event',
  );
  t.same(received[1]!.body.data.previous_attributes, { displayName: 'GQ' });
});
