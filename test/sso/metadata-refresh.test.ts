// test-suite: once (the SAML metadata refresh against the identity provider, and its row locks under concurrent runs)
/**
 * A SAML provider configured by metadata URL is kept in step with it (issue 46, item 5): the refresh
 * job's function is called directly, with the provider made due by moving its last success back past
 * the default refresh age, as the hours would. A certificate rotation published in the metadata is
 * picked up with no downtime (both keys sign in during the overlap, then the old one no longer does)
 * and recorded as `identity_provider.updated`; a failing URL keeps the settings and shows why in the
 * admin API until a later success clears it; two runs at once read the URL once.
 */
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import { resolveSecretsKey } from '../../src/auth/secret.ts';
import { SecretBox } from '../../src/auth/secret-box.ts';
import { metadataRefreshFor } from '../../src/identity/providers/metadata-refresh-job.ts';
import { postToAcs, TestSamlIdp, type SamlKeys } from '../helpers/saml-idp.ts';
import { sharedServer } from '../helpers/server.ts';
import { adminToken, createTenant } from './sso-fixtures.ts';

type Handler = (res: http.ServerResponse) => void | Promise<void>;

/** A metadata server on loopback: what each path answers, set by the test, and how often it was asked. */
async function metadataServer(t: Test) {
  const handlers = new Map<string, Handler>();
  const requests = new Map<string, number>();
  const server = http.createServer((req, res) => {
    requests.set(req.url!, (requests.get(req.url!) ?? 0) + 1);
    const handler = handlers.get(req.url!);
    if (handler) void handler(res);
    else res.writeHead(404).end();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: (path: string) => `${origin}${path}`,
    serve: (path: string, handler: Handler) => void handlers.set(path, handler),
    requests: (path: string) => requests.get(path) ?? 0,
  };
}

/** The IdP's metadata as it is at the time of each request. */
const metadataOf =
  (idp: TestSamlIdp): Handler =>
  (res) =>
    void res.writeHead(200, { 'content-type': 'application/samlmetadata+xml' }).end(idp.metadataXml());

async function setUp(t: Test, tenantId: string) {
  const server = await sharedServer({ baseUrlIsListenAddress: true, env: { ALLOW_INSECURE_IDP: 'true' } });
  const metadata = await metadataServer(t);
  const idp = await TestSamlIdp.create(`${tenantId}-idp`);
  // Before the rotation the provider publishes its current certificate only.
  const oldKeys = idp.keys;
  const newKeys = idp.backupKeys!;
  idp.backupKeys = undefined;
  const path = `/${tenantId}/metadata.xml`;
  metadata.serve(path, metadataOf(idp));
  await createTenant(server, tenantId);
  const token = await adminToken(server);
  const providerUrl = `/api/v1/admin/tenants/${tenantId}/identity-provider`;
  await server.api.put(providerUrl, {
    token,
    body: { protocol: 'saml', metadataUrl: metadata.url(path), allowIdpInitiated: true },
    expect: 200,
  });
  const acs = { acsUrl: `${server.baseUrl}/auth/saml/${tenantId}/callback`, spEntityId: `${server.baseUrl}/saml/metadata/${tenantId}` };
  const refresher = metadataRefreshFor(server.database.db, new SecretBox(resolveSecretsKey(server.config)), server.config);
  return {
    server,
    metadata,
    idp,
    oldKeys,
    newKeys,
    path,
    /** How many times the metadata URL was read (the PUT's included). */
    reads: () => metadata.requests(path),
    provider: async () => (await server.api.get(providerUrl, { token, expect: 200 })).body,
    /** A provider-initiated sign-in signed with `keys`: the ACS's status. */
    signIn: async (keys: SamlKeys) => {
      const email = `user@${tenantId}.example`;
      const r = await postToAcs(acs.acsUrl, idp.response({ ...acs, nameId: email, keys, attributes: { email } }));
      return r.status;
    },
    /** The refresh as the job runs it, at the default refresh age and retry interval. */
    refresh: (instance = refresher) => instance.refreshDue({ maxAgeS: server.config.samlMetadataRefreshS, retryAfterS: 3600 }),
    newRefresher: () => metadataRefreshFor(server.database.db, new SecretBox(resolveSecretsKey(server.config)), server.config),
    /** Thirteen hours pass: the last success and the last attempt fall behind the 12-hour refresh age. */
    makeDue: (columns: ('metadata_fetched_at' | 'metadata_attempted_at')[] = ['metadata_fetched_at', 'metadata_attempted_at']) =>
      server.database.db
        .updateTable('identity_providers')
        .set(Object.fromEntries(columns.map((c) => [c, new Date(Date.now() - 13 * 3600_000)])))
        .where('tenant_id', '=', tenantId)
        .execute(),
    updatedEvents: () =>
      server.database.db
        .selectFrom('webhook_events')
        .selectAll()
        .where('type', '=', 'identity_provider.updated')
        .where('tenant_id', '=', tenantId)
        .orderBy('position')
        .execute(),
  };
}

const pem = (keys: SamlKeys) => keys.certificatePem.trim();

t.test('a certificate rotation published in the metadata is picked up with no downtime, and recorded', async (t) => {
  const s = await setUp(t, 'rotating');
  t.equal(s.server.config.samlMetadataRefreshS, 12 * 3600, 'the default refresh age is 12 hours');
  const stored = await s.provider();
  t.same(
    stored.saml.certificates.map((c: string) => c.trim()),
    [pem(s.oldKeys)],
  );
  t.equal(stored.metadataRefresh.lastError, null);
  t.ok(stored.metadataRefresh.lastSuccessAt, 'the PUT that read the URL is its last success');

  t.same(await s.refresh(), [], 'read just now: not due');
  t.equal(s.reads(), 1, 'only the PUT read the URL');
  t.equal(await s.signIn(s.oldKeys), 302, 'the current key signs in');
  t.equal(await s.signIn(s.newKeys), 401, 'the next key does not, before the provider publishes it');

  // The provider announces its next certificate beside the current one.
  s.idp.backupKeys = s.newKeys;
  await s.makeDue();
  t.match(await s.refresh(), [{ tenantId: 'rotating', result: 'updated' }]);
  t.equal(s.reads(), 2);
  const overlap = await s.provider();
  t.same(
    overlap.saml.certificates.map((c: string) => c.trim()),
    [pem(s.oldKeys), pem(s.newKeys)],
    'both certificates, current first',
  );
  t.equal(await s.signIn(s.oldKeys), 302, 'during the overlap the old key still signs in');
  t.equal(await s.signIn(s.newKeys), 302, 'and the new one does too');
  const [first, ...more] = await s.updatedEvents();
  t.equal(more.length, 0, 'one identity_provider.updated');
  t.same(
    (first!.previous_attributes as any).saml.certificates.map((c: string) => c.trim()),
    [pem(s.oldKeys)],
    'previous_attributes holds the certificates before the refresh',
  );
  t.notOk('metadataRefresh' in (first!.previous_attributes as object), 'the refresh status is not a setting');

  // The provider signs with the new key only and stops publishing the old one.
  s.idp.keys = s.newKeys;
  s.idp.backupKeys = undefined;
  await s.makeDue();
  t.match(await s.refresh(), [{ tenantId: 'rotating', result: 'updated' }]);
  t.same(
    (await s.provider()).saml.certificates.map((c: string) => c.trim()),
    [pem(s.newKeys)],
  );
  t.equal(await s.signIn(s.newKeys), 302, 'the new key signs in');
  t.equal(await s.signIn(s.oldKeys), 401, 'the old key, no longer in the metadata, is refused');
  t.equal((await s.updatedEvents()).length, 2);

  // Metadata that has not changed: only the time of the success moves, and no event.
  const before = await s.provider();
  await s.makeDue();
  t.match(await s.refresh(), [{ tenantId: 'rotating', result: 'unchanged' }]);
  const after = await s.provider();
  t.ok(Date.now() - Date.parse(after.metadataRefresh.lastSuccessAt) < 60_000, 'the success is stamped');
  t.equal(after.updatedAt, before.updatedAt, 'the settings were not written');
  t.equal((await s.updatedEvents()).length, 2, 'an unchanged refresh records no event');
});

t.test('a failing metadata URL keeps the settings and shows why; a later success clears it', async (t) => {
  const s = await setUp(t, 'failing');
  const stored = await s.provider();

  s.metadata.serve(s.path, (res) => void res.writeHead(500).end('internal detail that must not show'));
  await s.makeDue();
  t.match(await s.refresh(), [{ tenantId: 'failing', result: 'failed', error: 'The metadata URL cannot be read: it answered HTTP 500' }]);
  const failed = await s.provider();
  t.same(failed.saml, stored.saml, 'the settings are kept');
  t.equal(failed.metadataRefresh.lastError, 'The metadata URL cannot be read: it answered HTTP 500');
  t.ok(Date.now() - Date.parse(failed.metadataRefresh.lastSuccessAt) > 12 * 3600_000, 'the last success is still the one before');
  t.ok(
    Date.parse(failed.metadataRefresh.lastAttemptAt) > Date.parse(failed.metadataRefresh.lastSuccessAt),
    'the attempt is after the last success',
  );
  t.ok(Date.now() - Date.parse(failed.metadataRefresh.lastAttemptAt) < 60_000, 'the attempt is the one just made');
  t.equal(await s.signIn(s.oldKeys), 302, 'sign-in still works with the kept certificate');

  const reads = s.reads();
  await s.makeDue(['metadata_fetched_at']);
  t.same(await s.refresh(), [], 'a failed URL is not read again within the retry interval');
  t.equal(s.reads(), reads);

  s.metadata.serve(s.path, (res) => void res.writeHead(200, { 'content-type': 'application/xml' }).end('<html>not metadata'));
  await s.makeDue();
  t.match(await s.refresh(), [{ tenantId: 'failing', result: 'failed', error: /^The SAML metadata is not usable: / }]);
  t.match((await s.provider()).metadataRefresh.lastError, /^The SAML metadata is not usable: /, 'garbage is a failure too');
  t.same((await s.provider()).saml, stored.saml);
  t.equal(await s.signIn(s.oldKeys), 302);
  t.equal((await s.updatedEvents()).length, 0, 'a failure records no event');

  s.metadata.serve(s.path, metadataOf(s.idp));
  await s.makeDue();
  t.match(await s.refresh(), [{ tenantId: 'failing', result: 'unchanged' }]);
  const recovered = await s.provider();
  t.equal(recovered.metadataRefresh.lastError, null, 'a success clears the error');
  t.equal(recovered.metadataRefresh.lastSuccessAt, recovered.metadataRefresh.lastAttemptAt, 'the last attempt is the last success');
  t.ok(Date.now() - Date.parse(recovered.metadataRefresh.lastSuccessAt) < 60_000);
});

t.test('two refresh runs at once read the metadata URL once', async (t) => {
  const s = await setUp(t, 'twice');
  // A slow provider: the second run starts while the first is still reading.
  const serve = metadataOf(s.idp);
  s.metadata.serve(s.path, async (res) => {
    await new Promise((resolve) => setTimeout(resolve, 300));
    await serve(res);
  });
  await s.makeDue();
  const runs = await Promise.all([s.refresh(), s.refresh(s.newRefresher())]);
  t.equal(s.reads(), 2, 'the PUT and one refresh');
  t.same(runs.flat(), [{ tenantId: 'twice', result: 'unchanged' }], 'one run refreshed it, the other found nothing due');
});
