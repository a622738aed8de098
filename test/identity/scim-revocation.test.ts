// test-suite: once (it needs a second instance, which needs PostgreSQL)
/**
 * Issue 14's revocation acceptance, end to end through SCIM: a user provisioned by SCIM signs in (a
 * session) and holds a JWT naming it; the request right after the deactivating PATCH (as Entra ID
 * and Okta send it) or the DELETE is refused with 401 on REST and GraphQL, on the instance that took
 * the SCIM request and, on PostgreSQL, on a second instance over the same database; the user's
 * WebSocket connections are closed with 4403 within a second.
 */
import type { Test } from 'tap';
import t from 'tap';
import { onPostgres } from '../helpers/database.ts';
import { scimTenant, type ScimClient } from '../helpers/scim.ts';
import { sharedServer, startSecondInstance, type TestServer } from '../helpers/server.ts';
import { closedWithin, socket, statuses } from './credential-probes.ts';

type Instance = Pick<TestServer, 'baseUrl'>;

/** A SCIM-provisioned user with a session token and a JWT naming it, both accepted everywhere. */
async function provisioned(t: Test, server: TestServer, scim: ScimClient, userName: string, instances: Instance[]) {
  const created = await scim.post('/Users', { userName, name: { givenName: 'Pat', familyName: 'Doe' } }, { expect: 201 });
  const id = created.body.id as string;
  const session = await server.app.services.sessions.create(id);
  const jwt = await server.token(id);
  for (const instance of instances) {
    t.same(await statuses(t, instance, session.token), [200, 200], `${userName}: the session works before`);
    t.same(await statuses(t, instance, jwt), [200, 200], `${userName}: the JWT works before`);
  }
  const sockets = instances.flatMap((instance) => [socket(t, instance, session.token), socket(t, instance, jwt)]);
  await Promise.all(sockets.map((s) => s.connected));
  return { id, session: session.token, jwt, sockets };
}

async function refusedEverywhere(
  t: Test,
  instances: Instance[],
  user: { session: string; jwt: string; sockets: ReturnType<typeof socket>[] },
  at: number,
) {
  for (const [n, instance] of instances.entries()) {
    t.same(await statuses(t, instance, user.session), [401, 401], `instance ${n + 1}: the session is refused on the next request`);
    t.same(await statuses(t, instance, user.jwt), [401, 401], `instance ${n + 1}: the JWT naming the user is refused on the next request`);
  }
  for (const s of user.sockets) {
    const closed = await closedWithin(s, at, 1000);
    t.equal(closed.code, 4403, 'WebSocket closed with 4403');
    t.ok(closed.elapsed < 1000, `within a second (${closed.elapsed} ms)`);
  }
}

t.test('SCIM deactivation and deletion revoke every credential on the next request', async (t) => {
  const server = await sharedServer();
  const scim = await scimTenant(server, 'acme');
  const instances = [server];

  const entra = await provisioned(t, server, scim, 'entra.user@acme.example', instances);
  let at = Date.now();
  await scim.patch(`/Users/${entra.id}`, [{ op: 'Replace', path: 'active', value: 'False' }], { expect: 200 });
  await refusedEverywhere(t, instances, entra, at);

  const okta = await provisioned(t, server, scim, 'okta.user@acme.example', instances);
  at = Date.now();
  await scim.patch(`/Users/${okta.id}`, [{ op: 'replace', value: { active: false } }], { expect: 200 });
  await refusedEverywhere(t, instances, okta, at);

  const leaver = await provisioned(t, server, scim, 'leaver@acme.example', instances);
  at = Date.now();
  await scim.delete(`/Users/${leaver.id}`, { expect: 204 });
  await refusedEverywhere(t, instances, leaver, at);

  const stayer = await provisioned(t, server, scim, 'stayer@acme.example', instances);
  await scim.patch(`/Users/${stayer.id}`, [{ op: 'replace', path: 'name.givenName', value: 'Sam' }], { expect: 200 });
  t.same(await statuses(t, server, stayer.session), [200, 200], 'a PATCH that keeps the user active revokes nothing');
  t.ok(
    stayer.sockets.every((s) => s.isOpen()),
    "and the user's sockets stay open",
  );
});

t.test(
  'a SCIM deactivation or deletion through one instance is refused on another at once',
  { skip: onPostgres ? false : 'needs PostgreSQL (TEST_DATABASE_URL): an in-memory PGlite cannot be shared by two instances' },
  async (t) => {
    const one = await sharedServer();
    const two = await startSecondInstance(t, one);
    const scim = await scimTenant(one, 'globex');
    const instances = [one, two];

    const deactivated = await provisioned(t, one, scim, 'deactivated@globex.example', instances);
    let at = Date.now();
    await scim.patch(`/Users/${deactivated.id}`, [{ op: 'replace', path: 'active', value: false }], { expect: 200 });
    await refusedEverywhere(t, instances, deactivated, at);

    const deleted = await provisioned(t, one, scim, 'deleted@globex.example', instances);
    at = Date.now();
    await scim.delete(`/Users/${deleted.id}`, { expect: 204 });
    await refusedEverywhere(t, instances, deleted, at);
  },
);
