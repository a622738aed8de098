// test-suite: once (SAML response checks happen before any write)
/**
 * Hostile SAML responses, each its own test, posted as they are (test/sso/saml-encrypted.test.ts
 * posts the same table inside EncryptedAssertions): the cases of test/sso/saml-hostile-cases.ts.
 */
import t from 'tap';
import { sessionCookie } from './sso-fixtures.ts';
import { HOSTILE_CASES, hostileContext, runHostileCase, type HostileContext } from './saml-hostile-cases.ts';

let ctx: HostileContext;

t.before(async () => {
  ctx = await hostileContext(t);
});

t.test('control: the untampered response signs in', async (t) => {
  const { login, options } = await ctx.solicited();
  const r = await ctx.acme.post(await ctx.respond(options), login.relayState);
  t.equal(r.status, 302);
  t.ok(sessionCookie(r));
});

for (const hostile of HOSTILE_CASES) {
  t.test(hostile.name, (t) => runHostileCase(t, ctx, hostile));
}
