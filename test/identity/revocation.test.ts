/**
 * Revocation of every credential that names a stored user, on one instance (decision 63): revoking a
 * session, revoking all of a user's sessions, deactivating the user with a plain SQL UPDATE (as SCIM
 * does) or deleting it refuses the very next request with that session and with a JWT naming the
 * user, and closes that user's (or that session's) WebSocket connections with 4403 within a second,
 * leaving everyone else's open. A JWT whose subject is no stored user keeps working.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { sharedServer, type TestServer } from '../helpers/server.ts';
import { seed } from '../graphql/gql.ts';
import { revokeSessionsOfUser } from '../../src/identity/sign-in/sessions.repository.ts';
import { closedWithin, socket, statuses } from './credential-probes.ts';

const server: TestServer = await sharedServer();
const { sessions } = server.app.services;
const db = server.database.db;
const deactivate = (id: string) => db.updateTable('users').set({ active: false }).where('id', '=', id).execute();
const reactivate = (id: string) => db.updateTable('users').set({ active: true }).where('id', '=', id).execute();

t.test('revoking one session refuses it at once and closes its socket only', async (t) => {
  const alice = await seed(server).user('alice');
  const [one, two] = [await sessions.create(alice.id), await sessions.create(alice.id)];
  const jwt = await server.token(alice.id);
  t.same(await statuses(t, server, one.token), [200, 200]);
  const [wsOne, wsTwo, wsJwt, wsAnonymous] = [
    socket(t, server, one.token),
    socket(t, server, two.token),
    socket(t, server, jwt),
    socket(t, server),
  ];
  await Promise.all([wsOne.connected, wsTwo.connected, wsJwt.connected, wsAnonymous.connected]);

  const at = Date.now();
  await sessions.revoke(one.record.id);
  t.same(await statuses(t, server, one.token), [401, 401], 'the revoked session: 401 on the very next request');
  const { code, elapsed } = await closedWithin(wsOne, at, 1000);
  t.equal(code, 4403);
  t.ok(elapsed < 1000, `its socket closed within a second (${elapsed} ms)`);

  t.same(await statuses(t, server, two.token), [200, 200], "the user's other session still works");
  t.same(await statuses(t, server, jwt), [200, 200], "and so does the user's JWT");
  await sleep(300);
  t.ok(wsTwo.isOpen() && wsJwt.isOpen() && wsAnonymous.isOpen(), 'the other sockets stay open');

  await sessions.revoke(one.record.id);
  t.ok((await sessions.get(one.record.id)).revoked_at, 'revoking again succeeds and keeps the revocation');
});

t.test('revoking all sessions of a user', async (t) => {
  const bob = await seed(server).user('bob');
  const carol = await seed(server).user('carol');
  const mine = [await sessions.create(bob.id), await sessions.create(bob.id)];
  const theirs = await sessions.create(carol.id);
  const sockets = mine.map((s) => socket(t, server, s.token));
  const other = socket(t, server, theirs.token);
  await Promise.all([...sockets, other].map((s) => s.connected));

  const at = Date.now();
  t.equal(await revokeSessionsOfUser(db, bob.id), 2);
  for (const s of mine) t.same(await statuses(t, server, s.token), [401, 401]);
  for (const s of sockets) t.equal((await closedWithin(s, at, 1000)).code, 4403);
  t.same(await statuses(t, server, theirs.token), [200, 200], "another user's session is untouched");
  t.ok(other.isOpen());
  t.equal(await revokeSessionsOfUser(db, bob.id), 0, 'nothing left to revoke');
});

t.test('deactivating the user with a plain UPDATE refuses its sessions and JWTs at once', async (t) => {
  const dave = await seed(server).user('dave');
  const session = await sessions.create(dave.id);
  const jwt = await server.token(dave.id);
  t.same(await statuses(t, server, session.token), [200, 200]);
  t.same(await statuses(t, server, jwt), [200, 200]);
  const [wsSession, wsJwt] = [socket(t, server, session.token), socket(t, server, jwt)];
  await Promise.all([wsSession.connected, wsJwt.connected]);

  const at = Date.now();
  await deactivate(dave.id);
  t.same(await statuses(t, server, session.token), [401, 401], 'the session: 401 on the very next request');
  t.same(await statuses(t, server, jwt), [401, 401], 'a JWT naming the user: 401 on the very next request');
  for (const ws of [wsSession, wsJwt]) {
    const { code, elapsed } = await closedWithin(ws, at, 1000);
    t.equal(code, 4403);
    t.ok(elapsed < 1000, `closed within a second (${elapsed} ms)`);
  }
  t.ok((await sessions.get(session.record.id)).revoked_at, 'the trigger revoked the session itself');
  const refused = socket(t, server, jwt);
  t.equal((await closedWithin(refused, Date.now(), 2000)).code, 4403, 'a new socket with the JWT is refused');

  await reactivate(dave.id);
  t.same(await statuses(t, server, session.token), [401, 401], 'reactivation does not bring a revoked session back');
  t.same(await statuses(t, server, jwt), [200, 200], 'a JWT naming the user is good again (it names an active user)');
});

t.test('deleting the user refuses its sessions and JWTs, and closes its sockets', async (t) => {
  const erin = await seed(server).user('erin');
  const session = await sessions.create(erin.id);
  const jwt = await server.token(erin.id, ['ADMIN']);
  const [wsSession, wsJwt] = [socket(t, server, session.token), socket(t, server, jwt)];
  await Promise.all([wsSession.connected, wsJwt.connected]);

  const at = Date.now();
  await db.deleteFrom('users').where('id', '=', erin.id).execute();
  t.same(await statuses(t, server, session.token), [401, 401]);
  t.same(await statuses(t, server, jwt), [401, 401], 'a JWT naming a deleted user is not taken for an operator token');
  for (const ws of [wsSession, wsJwt]) t.equal((await closedWithin(ws, at, 1000)).code, 4403);
  t.equal((await db.selectFrom('sessions').where('user_id', '=', erin.id).select('id').execute()).length, 0, 'its sessions are gone');
});

t.test('a JWT whose subject is no stored user keeps working', async (t) => {
  const operator = await server.token('operator-7', ['ADMIN']);
  t.same(await statuses(t, server, operator), [200, 200]);
  const ws = socket(t, server, operator);
  await ws.connected;
  const someone = await seed(server).user('frank');
  await deactivate(someone.id);
  await db.deleteFrom('users').where('id', '=', someone.id).execute();
  await sleep(300);
  t.ok(ws.isOpen(), "other users' revocations leave it open");
  t.same(await statuses(t, server, operator), [200, 200]);
});
