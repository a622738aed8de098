/**
 * The credential cache never outlives a revocation (decision 151): two instances over one PostgreSQL
 * database, the credential kept by instance B (it answered a request with it just before), revoked
 * through instance A, and requests sent to B while the revocation commits and right after. Every
 * request sent after the revoking statement returned must be refused; those sent while it was in
 * flight may go either way. Sessions race in parallel lanes, so that B's epoch reads are shared by
 * requests that arrive while one is in flight. With the epoch check taken out of
 * src/auth/credential-cache.ts, each of the three fails within its first hundred races.
 *
 * `npm test` runs 1,000 races (revocation-race.test.ts); the long tier 10,000
 * (revocation-race.long.test.ts), where a rarer interleaving has ten times the chances to show.
 */
import { sql } from 'kysely';
import t, { type Test } from 'tap';
import { seed } from '../graphql/gql.ts';
import { onPostgres } from '../helpers/database.ts';
import { TestSamlIdp } from '../helpers/saml-idp.ts';
import { GROUP_SCHEMA, scimTenant } from '../helpers/scim.ts';
import { sharedServer, startSecondInstance, type TestServer } from '../helpers/server.ts';

const LANES = 16;

/** How many races of each kind. */
interface RaceCounts {
  sessionRevocations: number;
  deactivations: number;
  roleRemovals: number;
}

type Instance = Pick<TestServer, 'baseUrl'>;

async function status(instance: Instance, path: string, token: string): Promise<number> {
  const r = await fetch(`${instance.baseUrl}${path}`, { headers: { authorization: `Bearer ${token}` } });
  await r.arrayBuffer();
  return r.status;
}

interface RaceOutcome {
  /** Requests sent after the change returned that were still answered as before. */
  acceptedAfter: number;
  /** Requests sent while the change was in flight, by whether they were accepted. */
  during: { accepted: number; refused: number };
}

/**
 * Runs `change` and, while it is in flight, sends requests to `two` one after another; then one
 * more as soon as it has returned. `accepted` is the status the credential had before the change.
 */
async function race(two: Instance, url: string, token: string, accepted: number, change: () => Promise<unknown>, outcome: RaceOutcome) {
  let returned = false;
  const changed = change().then(() => {
    returned = true;
  });
  while (!returned) outcome.during[(await status(two, url, token)) === accepted ? 'accepted' : 'refused']++;
  await changed;
  if ((await status(two, url, token)) === accepted) outcome.acceptedAfter++;
}

async function inLanes(count: number, run: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: LANES }, async () => {
      while (next < count) await run(next++);
    }),
  );
}

const newOutcome = (): RaceOutcome => ({ acceptedAfter: 0, during: { accepted: 0, refused: 0 } });

function report(t: Test, what: string, runs: number, outcome: RaceOutcome) {
  t.equal(outcome.acceptedAfter, 0, `${what}, ${runs} times: 0 requests accepted after the change returned`);
  t.comment(`${what}: while in flight ${outcome.during.accepted} accepted, ${outcome.during.refused} refused`);
}

export function revocationRaces({
  sessionRevocations: SESSION_REVOCATIONS,
  deactivations: DEACTIVATIONS,
  roleRemovals: ROLE_REMOVALS,
}: RaceCounts) {
  t.test(
    `a credential instance B keeps is refused by B as soon as instance A has revoked it (${SESSION_REVOCATIONS + DEACTIVATIONS + ROLE_REMOVALS} races)`,
    { skip: onPostgres ? false : 'needs PostgreSQL (TEST_DATABASE_URL): an in-memory PGlite cannot be shared by two instances' },
    async (t) => {
      const one = await sharedServer();
      const two = await startSecondInstance(t, one);
      const { db } = one.database;
      const { sessions } = one.app.services;

      await t.test('a session revoked through the service, or with plain SQL', async (t) => {
        const alice = await seed(one).user('alice');
        const began = performance.now();
        const issued: { id: string; token: string }[] = [];
        for (let i = 0; i < SESSION_REVOCATIONS; i += 100) {
          const batch = await Promise.all(Array.from({ length: Math.min(100, SESSION_REVOCATIONS - i) }, () => sessions.create(alice.id)));
          issued.push(...batch.map(({ record, token }) => ({ id: record.id, token })));
        }
        // As if each had been used a moment ago: B's first request then reads it without recording a use.
        await sql`update sessions set last_seen_at = now() where user_id = ${alice.id}`.execute(db);
        t.comment(`created in ${performance.now() - began} ms`);
        const outcome = newOutcome();
        let warm = 0;
        await inLanes(SESSION_REVOCATIONS, async (i) => {
          const { id, token } = issued[i]!;
          if ((await status(two, '/api/v1/orders', token)) === 200) warm++;
          // One in ten with a plain UPDATE, as an operator in psql would.
          const revoke =
            i % 10 === 0 ? () => sql`update sessions set revoked_at = now() where id = ${id}`.execute(db) : () => sessions.revoke(id);
          await race(two, '/api/v1/orders', token, 200, revoke, outcome);
        });
        t.equal(warm, SESSION_REVOCATIONS, 'each session was good on B before its revocation');
        report(t, 'session revoked', SESSION_REVOCATIONS, outcome);
      });

      await t.test('a user deactivated with plain SQL: its JWT', async (t) => {
        const bob = await seed(one).user('bob');
        const jwt = await one.token(bob.id);
        const outcome = newOutcome();
        let warm = 0;
        // One user, so one lane: each round reactivates it, then races its deactivation.
        for (let i = 0; i < DEACTIVATIONS; i++) {
          await sql`update users set active = true where id = ${bob.id}`.execute(db);
          if ((await status(two, '/api/v1/orders', jwt)) === 200) warm++;
          await race(two, '/api/v1/orders', jwt, 200, () => sql`update users set active = false where id = ${bob.id}`.execute(db), outcome);
        }
        t.equal(warm, DEACTIVATIONS, 'the JWT was good on B before each deactivation');
        report(t, 'user deactivated', DEACTIVATIONS, outcome);
      });

      await t.test('a role removed by leaving the group its tenant maps to ADMIN', async (t) => {
        const operator = await one.token('operator', ['ADMIN']);
        const scim = await scimTenant(one, 'acme');
        const idp = await TestSamlIdp.create('acme-idp');
        await one.api.put('/api/v1/admin/tenants/acme/identity-provider', {
          token: operator,
          body: { protocol: 'saml', metadataXml: idp.metadataXml(), roleMapping: { admins: 'ADMIN' } },
          expect: 200,
        });
        const created = await scim.post(
          '/Users',
          { userName: 'mallory@acme.example', emails: [{ value: 'mallory@acme.example' }] },
          { expect: 201 },
        );
        const userId = created.body.id as string;
        const group = await scim.post(
          '/Groups',
          { schemas: [GROUP_SCHEMA], displayName: 'admins', members: [{ value: userId }] },
          { expect: 201 },
        );
        const groupId = group.body.id as string;
        const { token } = await sessions.create(userId);
        const outcome = newOutcome();
        let warm = 0;
        for (let i = 0; i < ROLE_REMOVALS; i++) {
          if (i > 0) await sql`insert into group_members (group_id, user_id) values (${groupId}, ${userId})`.execute(db);
          if ((await status(two, '/api/v1/admin/tenants/acme', token)) === 200) warm++;
          const leave = () => sql`delete from group_members where group_id = ${groupId} and user_id = ${userId}`.execute(db);
          await race(two, '/api/v1/admin/tenants/acme', token, 200, leave, outcome);
        }
        t.equal(warm, ROLE_REMOVALS, 'the session was the tenant’s ADMIN on B before each removal');
        report(t, 'ADMIN role removed', ROLE_REMOVALS, outcome);
      });
    },
  );
}
