// test-suite: postgres-only (two instances cannot share an in-memory PGlite; the file skips there)
/**
 * Two instances behind one address (PostgreSQL): a SAML sign-in started on one completes on the
 * other (the request id is in the database), a replay of it on either is refused, and a session
 * ended on one is refused by the other on its next request.
 */
import t from 'tap';
import { onPostgres } from '../helpers/database.ts';
import { postToAcs, TestSamlIdp } from '../helpers/saml-idp.ts';
import { startSecondInstance } from '../helpers/server.ts';
import { samlTenant } from './saml-fixtures.ts';
import { sessionCookie } from './sso-fixtures.ts';

t.test(
  'a SAML sign-in started on one instance completes on the other; logout on one ends it on both',
  { skip: onPostgres ? false : 'needs PostgreSQL (TEST_DATABASE_URL): an in-memory PGlite cannot be shared by two instances' },
  async (t) => {
    const idp = await TestSamlIdp.create('two-idp');
    const acme = await samlTenant(t, idp);
    const second = await startSecondInstance(t, acme.server);
    const login = await acme.startLogin('/after');
    const response = idp.response(acme.options('two@acme.example', { inResponseTo: login.id }));
    const onSecond = await postToAcs(`${second.baseUrl}/auth/saml/acme/callback`, response, login.relayState, login.cookie);
    t.equal(onSecond.status, 302, 'the second instance knows the request the first one sent');
    t.equal(onSecond.headers.get('location'), '/after');
    const token = sessionCookie(onSecond)!;
    const replay = await acme.post(response, login.relayState);
    t.equal(replay.status, 401, 'and the first refuses the same response');

    const session = (base: string) => fetch(`${base}/auth/session`, { headers: { authorization: `Bearer ${token}` } });
    t.equal((await session(acme.server.baseUrl)).status, 200);
    const out = await fetch(`${second.baseUrl}/auth/logout`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
    t.equal(out.status, 200);
    t.equal((await session(acme.server.baseUrl)).status, 401, 'the other instance refuses it on the next request');
  },
);
