// test-suite: once (session tokens and their use across transports)
/**
 * Server-side sessions: created through the service (single sign-on will call it), the token shown
 * once and stored as a digest only; accepted as `Authorization: Bearer` on REST, GraphQL over HTTP
 * and the WebSocket's `connection_init`, acting as its user; refused once expired.
 */
import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { CachedCredentialStore } from '../../src/auth/credential-cache.ts';
import { CredentialVerifier } from '../../src/auth/credentials.ts';
import { loadConfig } from '../../src/config.ts';
import { sharedServer, TEST_JWT_SECRET } from '../helpers/server.ts';
import { gql, seed } from '../graphql/gql.ts';
import { closedWithin, socket, statuses } from './credential-probes.ts';

const server = await sharedServer();
const { sessions, tenants } = server.app.services;
const db = server.database.db;
const verifier = new CredentialVerifier(TEST_JWT_SECRET, new CachedCredentialStore(sessions));

t.test('create returns the token once; only its digest is stored', async (t) => {
  const alice = await seed(server).user('alice');
  const before = Date.now();
  const { record, token } = await sessions.create(alice.id, { roles: ['ADMIN', 'ADMIN'] });
  t.match(token, /^sfsess_[A-Za-z0-9_-]{43}$/, 'a prefixed token no JWT can be mistaken for');
  t.match(record, { user_id: alice.id, tenant_id: 'default', roles: ['ADMIN'], revoked_at: null, last_seen_at: null });
  t.notOk('token_sha256' in record, 'the digest never leaves the repository');
  const ttl = record.expires_at.getTime() - record.created_at.getTime();
  t.equal(ttl, 8 * 3600 * 1000, 'AUTH_SESSION_TTL_S defaults to 8 hours');
  t.ok(record.created_at.getTime() >= before - 1000);

  const row = await db.selectFrom('sessions').selectAll().where('id', '=', record.id).executeTakeFirstOrThrow();
  t.equal(row.token_sha256, createHash('sha256').update(token).digest('hex'));
  const dump = JSON.stringify(await db.selectFrom('sessions').selectAll().execute());
  t.notOk(dump.includes(token.slice(7)), 'the token itself is nowhere in the table');
  t.same(await sessions.get(record.id), record);
  const second = await sessions.create(alice.id);
  t.not(second.token, token, 'every session has its own token');
});

t.test('create refuses unknown and deactivated users; unknown ids are 404', async (t) => {
  const bob = await seed(server).user('bob');
  await t.rejects(sessions.create('no-such-user'), { code: 'NOT_FOUND', reason: 'USER_NOT_FOUND' });
  await db.updateTable('users').set({ active: false }).where('id', '=', bob.id).execute();
  await t.rejects(sessions.create(bob.id), { code: 'VALIDATION' });
  await t.rejects(sessions.revoke('not-a-uuid'), { code: 'NOT_FOUND', reason: 'SESSION_NOT_FOUND' });
  await t.rejects(sessions.revoke('3f1d0f3e-1c2b-4a5d-9e8f-0a1b2c3d4e5f'), { code: 'NOT_FOUND' });
  await t.rejects(sessions.get('not-a-uuid'), { code: 'NOT_FOUND' });
});

t.test('the principal of a session and of a JWT naming a stored user', async (t) => {
  await tenants.create({ id: 'acme', name: 'Acme' });
  const carol = await seed(server).user('carol');
  await db.updateTable('users').set({ tenant_id: 'acme' }).where('id', '=', carol.id).execute();
  const { record, token } = await sessions.create(carol.id, { roles: ['EDITOR'] });
  const bySession = await verifier.verify(token);
  t.same(
    bySession.principal,
    { userId: carol.id, roles: [], tenantRoles: ['EDITOR'], storedUserId: carol.id, tenantId: 'acme', sessionId: record.id },
    'a role of a tenant other than the platform’s holds in that tenant only',
  );
  t.same(bySession.expiresAt, record.expires_at);

  const byJwt = await verifier.verify(await server.token(carol.id, ['ADMIN']));
  t.same(
    byJwt.principal,
    { userId: carol.id, roles: ['ADMIN'], tenantRoles: [], storedUserId: carol.id, tenantId: 'acme', sessionId: null },
    'an operator’s JWT grants platform roles',
  );
  const operator = await verifier.verify(await server.token('operator', ['ADMIN']));
  t.same(
    operator.principal,
    { userId: 'operator', roles: ['ADMIN'], tenantRoles: [], storedUserId: null, tenantId: null, sessionId: null },
    'unknown sub: as before',
  );
});

t.test('a session token is a bearer credential on REST, GraphQL over HTTP and WebSocket', async (t) => {
  const dave = await seed(server).user('dave');
  const { token } = await sessions.create(dave.id);
  t.same(await statuses(t, server, token), [200, 200]);
  const anonymous = await fetch(`${server.baseUrl}/api/v1/orders`);
  t.equal(anonymous.status, 401, 'the REST probe does need a caller');

  const created = await gql(
    server,
    'mutation { createPost(input: { title: "Mine", content: "c", status: PUBLISHED }) { author { id } } }',
    {},
    token,
  );
  t.same(created.body, { data: { createPost: { author: { id: dave.id } } } }, "the session acts as its user (the principal's username)");

  const ws = socket(t, server, token);
  await ws.connected;
  t.ok(ws.isOpen(), 'connection_init with the session token is acknowledged');

  for (const bad of ['sfsess_', `sfsess_${'A'.repeat(43)}`, `${token}x`, token.replace(/^sfsess_/, 'sfsesS_')]) {
    t.same(await statuses(t, server, bad), [401, 401], `refused: ${bad.slice(0, 12)}…`);
  }
  const refused = socket(t, server, `sfsess_${'A'.repeat(43)}`);
  t.equal((await closedWithin(refused, Date.now(), 2000)).code, 4403, 'an unknown session token closes the socket with 4403');
});

t.test('last use is recorded, at most once a minute', async (t) => {
  const erin = await seed(server).user('erin');
  const { record, token } = await sessions.create(erin.id);
  await statuses(t, server, token);
  const seen = (await sessions.get(record.id)).last_seen_at;
  t.ok(seen, 'recorded on first use');
  await statuses(t, server, token);
  t.same((await sessions.get(record.id)).last_seen_at, seen, 'not rewritten within the minute');
});

t.test('an expired session is refused, and its WebSocket closed at expiry', async (t) => {
  const frank = await seed(server).user('frank');
  const { record, token } = await sessions.create(frank.id);
  await db
    .updateTable('sessions')
    .set({ expires_at: new Date(Date.now() + 1500) })
    .where('id', '=', record.id)
    .execute();
  t.same(await statuses(t, server, token), [200, 200]);
  const ws = socket(t, server, token);
  await ws.connected;
  await sleep(500);
  t.ok(ws.isOpen(), 'open while the session lasts');
  const { code } = await closedWithin(ws, Date.now(), 2000);
  t.equal(code, 4403, 'closed at expiry');
  t.same(await statuses(t, server, token), [401, 401], 'refused after expiry');
});

t.test('AUTH_SESSION_TTL_S is validated', async (t) => {
  t.equal(loadConfig({ AUTH_SESSION_TTL_S: '600' }).authSessionTtlS, 600);
  t.throws(() => loadConfig({ AUTH_SESSION_TTL_S: '10' }), /AUTH_SESSION_TTL_S: expected a number from 60 to 2592000/);
  t.throws(() => loadConfig({ AUTH_SESSION_TTL_S: '1h' }), /AUTH_SESSION_TTL_S: expected a whole number/);
});
