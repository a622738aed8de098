// test-suite: once (the events are written in the admin operations' transactions and fanned out by one statement, the same on both engines)
/**
 * A tenant's identity events (issue 44 item 2): setting up, changing and removing its identity
 * provider emit `identity_provider.activated`, `.updated` (with the changed fields' earlier values;
 * a PUT that changes nothing emits nothing) and `.deleted`, and verifying a domain
 * `domain.verified` once, each numbered per resource, valid against its catalog schema, at the
 * tenant's endpoint and at a platform endpoint subscribed to every tenant's; the other tenant's
 * endpoint and a platform endpoint without `all_tenants` receive none. Refused writes emit nothing.
 * Each new type also has a test event (`POST /api/webhooks/{id}/test`) that the catalog accepts.
 */
import t from 'tap';
import { startDnsServer } from '../helpers/dns-server.ts';
import { TestSamlIdp } from '../helpers/saml-idp.ts';
import type { TestServer } from '../helpers/server.ts';
import { catalogViolation, startReceiver, type ReceivedRequest } from '../helpers/webhook-receiver.ts';
import { createTenant } from '../sso/sso-fixtures.ts';
import { startWebhookServer } from './webhook-fixtures.ts';

interface Received {
  type: string;
  tenant: string | undefined;
  sequence: number | undefined;
  body: Record<string, any>;
}

function parse(request: ReceivedRequest): Received {
  const violation = catalogViolation(request.rawBody);
  if (violation) throw new Error(violation);
  const body = JSON.parse(request.rawBody) as Record<string, any>;
  return { type: body.type, tenant: body.tenant_id, sequence: body.sequence, body };
}

const IDENTITY_TYPES = ['identity_provider.activated', 'identity_provider.updated', 'identity_provider.deleted', 'domain.verified'];

/** What `receiver` got of the identity types, as `type@sequence` in arrival order. */
const identityEvents = (receiver: { requests: ReceivedRequest[] }) =>
  receiver.requests
    .map(parse)
    .filter((r) => IDENTITY_TYPES.includes(r.type))
    .map((r) => `${r.tenant}:${r.type}@${r.sequence}`);

async function register(server: TestServer & { admin_token: string }, origin: string, body: Record<string, unknown>) {
  return (await server.api.post('/api/webhooks', { token: server.admin_token, body: { url: `${origin}/hooks`, ...body }, expect: 201 }))
    .body;
}

t.test('provider set up, changed, removed and a domain verified: the tenant and every-tenant subscribers only', async (t) => {
  const dns = await startDnsServer(t);
  const server = await startWebhookServer(t, { DNS_RESOLVER: dns.address });
  await createTenant(server, 'acme');
  await createTenant(server, 'globex');
  const [acmeReceiver, globexReceiver, everyTenant, platformOnly] = await Promise.all([
    startReceiver(t),
    startReceiver(t),
    startReceiver(t),
    startReceiver(t),
  ]);
  await register(server, acmeReceiver.origin, { events: ['*'], tenant_id: 'acme' });
  await register(server, globexReceiver.origin, { events: ['*'], tenant_id: 'globex' });
  await register(server, everyTenant.origin, { events: IDENTITY_TYPES, all_tenants: true });
  await register(server, platformOnly.origin, { events: ['*'] });

  const token = server.admin_token;
  const idp = await TestSamlIdp.create('acme-idp');
  const provider = `/api/v1/admin/tenants/acme/identity-provider`;
  const saml = { protocol: 'saml', metadataXml: idp.metadataXml() };
  await server.api.put(provider, { token, body: saml, expect: 200 });
  await server.api.put(provider, { token, body: saml, expect: 200 }); // the same settings: no event
  await server.api.put(provider, { token, body: { ...saml, roleMapping: { admins: 'ADMIN' } }, expect: 200 });
  await server.api.delete(provider, { token, expect: 204 });
  await server.api.put(provider, { token, body: saml, expect: 200 });

  // Refused writes emit nothing: an unknown tenant, settings the service refuses, a second delete.
  await server.api.put('/api/v1/admin/tenants/nobody/identity-provider', { token, body: saml, expect: 404 });
  await server.api.put(provider, { token, body: { protocol: 'saml', metadataXml: '<not-metadata/>' }, expect: 400 });
  await server.api.delete('/api/v1/admin/tenants/globex/identity-provider', { token, expect: 404 });

  const claim = await server.api.post('/api/v1/admin/tenants/acme/domains', { token, body: { domain: 'acme.example' }, expect: 201 });
  const verify = '/api/v1/admin/tenants/acme/domains/acme.example/verify';
  await server.api.post(verify, { token, body: { method: 'dns' }, expect: 409 }); // no TXT record yet: no event
  dns.setTxt(claim.body.txtRecordName, [claim.body.txtRecordValue]);
  await server.api.post(verify, { token, body: { method: 'dns' }, expect: 200 });
  await server.api.post(verify, { token, body: { method: 'dns' }, expect: 200 }); // already verified: no second event

  // globex's own provider: its endpoint's, never acme's.
  const globexIdp = await TestSamlIdp.create('globex-idp');
  await server.api.put('/api/v1/admin/tenants/globex/identity-provider', {
    token,
    body: { protocol: 'saml', metadataXml: globexIdp.metadataXml() },
    expect: 200,
  });

  const acmeExpected = [
    'acme:identity_provider.activated@1',
    'acme:identity_provider.updated@2',
    'acme:identity_provider.deleted@3',
    'acme:identity_provider.activated@4',
    'acme:domain.verified@1',
  ];
  await everyTenant.waitFor(acmeExpected.length + 1, 15_000);
  await globexReceiver.waitFor(1, 15_000);
  await new Promise((resolve) => setTimeout(resolve, 300));
  t.same(identityEvents(acmeReceiver), acmeExpected, "acme's endpoint: exactly its events, in order, numbered per resource");
  t.same(identityEvents(globexReceiver), ['globex:identity_provider.activated@1'], "globex's endpoint: its own event only");
  t.same(identityEvents(everyTenant), [...acmeExpected, 'globex:identity_provider.activated@1'], 'the every-tenant endpoint: both');
  t.same(identityEvents(platformOnly), [], 'a platform endpoint without all_tenants: none');

  const acmeEvents = acmeReceiver.requests.map(parse).filter((r) => IDENTITY_TYPES.includes(r.type));
  const [activated, updated, deleted] = acmeEvents;
  t.match(activated!.body.data.object, { tenantId: 'acme', protocol: 'saml', saml: { entityId: idp.entityId }, roleMapping: {} });
  t.notOk('url' in activated!.body.data.object, 'no url: the admin API is an operator path, the tenant is named instead');
  t.same(updated!.body.data.previous_attributes, { roleMapping: {} }, 'updated: the changed field with its earlier value');
  t.same(updated!.body.data.object.roleMapping, { admins: 'ADMIN' });
  t.same(deleted!.body.data.object.roleMapping, { admins: 'ADMIN' }, 'deleted: the last representation');
  const verified = acmeEvents[4]!.body.data.object;
  t.match(verified, { domain: 'acme.example', tenantId: 'acme', status: 'verified', txtRecordValue: claim.body.txtRecordValue });
  t.ok(verified.verifiedAt, 'the verification time');
});

t.test('the identity types have test events the catalog accepts, also in the thin variant', async (t) => {
  const server = await startWebhookServer(t);
  await createTenant(server, 'acme');
  const [fat, thin] = await Promise.all([startReceiver(t), startReceiver(t)]);
  const fatEndpoint = await register(server, fat.origin, { events: ['*'], tenant_id: 'acme' });
  const thinEndpoint = await register(server, thin.origin, { events: ['*'], tenant_id: 'acme', payload: 'thin' });
  for (const type of IDENTITY_TYPES) {
    for (const endpoint of [fatEndpoint, thinEndpoint]) {
      await server.api.post(`/api/webhooks/${endpoint.id}/test`, { token: server.admin_token, body: { event_type: type }, expect: 202 });
    }
  }
  const received = [...(await fat.waitFor(IDENTITY_TYPES.length)), ...(await thin.waitFor(IDENTITY_TYPES.length))].map(parse);
  t.same(received.map((r) => r.type).sort(), [...IDENTITY_TYPES, ...IDENTITY_TYPES].sort(), 'one of each type at each endpoint');
  const thinProvider = received.find((r) => r.type === 'identity_provider.updated' && 'object_id' in r.body.data)!;
  t.same(thinProvider.body.data, { object_id: 'default', object_type: 'identity_provider', previous_attributes: { roleMapping: {} } });
});
