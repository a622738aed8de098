// test-suite: postgres-only (two instances cannot share an in-memory PGlite; the file skips there)
/**
 * Revocation on every instance: two applications over one PostgreSQL database. Revoking a session,
 * or deactivating a user with a plain UPDATE, through instance 1 refuses the credential on instance 2
 * on the very next request (every request reads the database, nothing is cached), and closes the
 * matching WebSocket connections on instance 2 with 4403 within a second (the triggers' notification
 * reaches every instance's LISTEN).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import t from 'tap';
import { onPostgres } from '../helpers/database.ts';
import { sharedServer, startSecondInstance } from '../helpers/server.ts';
import { seed } from '../graphql/gql.ts';
import { closedWithin, socket, statuses } from './credential-probes.ts';

t.test(
  'a revocation through one instance holds on the other at once',
  { skip: onPostgres ? false : 'needs PostgreSQL (TEST_DATABASE_URL): an in-memory PGlite cannot be shared by two instances' },
  async (t) => {
    const one = await sharedServer();
    const two = await startSecondInstance(t, one);
    const { sessions } = one.app.services;
    const alice = await seed(one).user('alice');
    const bob = await seed(one).user('bob');
    const [kept, revoked] = [await sessions.create(alice.id), await sessions.create(alice.id)];
    const bobSession = await sessions.create(bob.id);
    const bobJwt = await one.token(bob.id);
    for (const token of [kept.token, revoked.token, bobSession.token, bobJwt]) t.same(await statuses(t, two, token), [200, 200]);

    const wsKept = socket(t, two, kept.token);
    const wsRevoked = socket(t, two, revoked.token);
    const wsBob = [socket(t, two, bobSession.token), socket(t, two, bobJwt)];
    await Promise.all([wsKept, wsRevoked, ...wsBob].map((s) => s.connected));

    let at = Date.now();
    await sessions.revoke(revoked.record.id);
    t.same(await statuses(t, two, revoked.token), [401, 401], 'revoked on instance 1: 401 on instance 2 on the very next request');
    let closed = await closedWithin(wsRevoked, at, 1000);
    t.equal(closed.code, 4403);
    t.ok(closed.elapsed < 1000, `its socket on instance 2 closed within a second (${closed.elapsed} ms)`);
    t.same(await statuses(t, two, kept.token), [200, 200], 'the other session still works on instance 2');

    at = Date.now();
    await one.database.db.updateTable('users').set({ active: false }).where('id', '=', bob.id).execute();
    t.same(await statuses(t, two, bobSession.token), [401, 401], "deactivated through instance 1's database: the session is refused on 2");
    t.same(await statuses(t, two, bobJwt), [401, 401], 'and so is a JWT naming the user');
    for (const ws of wsBob) {
      closed = await closedWithin(ws, at, 1000);
      t.equal(closed.code, 4403);
      t.ok(closed.elapsed < 1000, `closed on instance 2 within a second (${closed.elapsed} ms)`);
    }
    await sleep(300);
    t.ok(wsKept.isOpen(), "alice's remaining socket stays open");
  },
);

t.test(
  'a revocation sent while the LISTEN connection is down still closes the socket once it is back',
  { skip: onPostgres ? false : 'needs PostgreSQL (TEST_DATABASE_URL): PGlite listens in process and has no connection to lose' },
  async (t) => {
    const server = await sharedServer();
    const carol = await seed(server).user('carol');
    const dave = await seed(server).user('dave');
    const [carolSession, daveSession] = [
      await server.app.services.sessions.create(carol.id),
      await server.app.services.sessions.create(dave.id),
    ];
    const [wsCarol, wsDave] = [socket(t, server, carolSession.token), socket(t, server, daveSession.token)];
    await Promise.all([wsCarol.connected, wsDave.connected]);

    const { db } = server.database;
    const ended = await sql<{ ended: boolean }>`
      select pg_terminate_backend(pid) as ended from pg_stat_activity
      where datname = current_database() and query = 'LISTEN credential_revoked'`.execute(db);
    t.equal(ended.rows.length, 1, "the instance's LISTEN connection was ended");
    // No instance listens now: this notification reaches nobody.
    const at = Date.now();
    await db.updateTable('users').set({ active: false }).where('id', '=', carol.id).execute();
    const closed = await closedWithin(wsCarol, at, 3000);
    t.equal(closed.code, 4403, `closed after the listener reconnected and verified the open connections again (${closed.elapsed} ms)`);
    await sleep(300);
    t.ok(wsDave.isOpen(), 'a connection whose credential is still good stays open');
  },
);
