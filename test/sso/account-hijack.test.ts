// test-suite: once (sign-in rules)
/**
 * No account pre-hijack: in a domain tenant acme has verified, a password account cannot sign in
 * before the code mailed to its address is typed back, so registering a new hire's address first
 * gains nothing; when the real person later signs in through acme's provider, the unproven account
 * is theirs, without the squatter's password; and registering the address again replaces it.
 */
import t from 'tap';
import { startDnsServer } from '../helpers/dns-server.ts';
import { TestSamlIdp } from '../helpers/saml-idp.ts';
import { startServer } from '../helpers/server.ts';
import { samlTenant } from './saml-fixtures.ts';
import { mailedCode, RecordingMail, sessionCookie, sessionCount, sessionOf, verifiedDomain } from './sso-fixtures.ts';

const SQUATTER_PASSWORD = 'the squatter chose this one';
const NEW_HIRE = 'newhire@acme.example';

t.test('an unproven password account in a verified domain', async (t) => {
  const dns = await startDnsServer(t);
  const mail = new RecordingMail();
  const server = await startServer(t, { env: { DNS_RESOLVER: dns.address }, mail, baseUrlIsListenAddress: true });
  const idp = await TestSamlIdp.create('acme-idp');
  const acme = await samlTenant(t, idp, 'acme', server);
  await verifiedDomain(server, dns, 'acme', 'acme.example');

  t.test('registering someone else’s address signs nobody in', async (t) => {
    const before = await sessionCount(server);
    const squatted = await server.api.post('/auth/local/register', {
      body: { email: NEW_HIRE, password: SQUATTER_PASSWORD, username: 'newhire', displayName: 'Squatter' },
      expect: 202,
    });
    t.match(squatted.body, { status: 'proof-required', sentTo: NEW_HIRE });
    t.equal(sessionCookie(squatted), null, 'no session cookie');
    t.equal(await sessionCount(server), before, 'no session');
    t.match(mail.sent.at(-1), { to: NEW_HIRE, subject: /Confirm your e-mail address/ }, 'the code went to the mailbox, not to the caller');
    const login = await server.api.post('/auth/login', { body: { email: NEW_HIRE, password: SQUATTER_PASSWORD }, expect: 403 });
    t.match(login.body, { code: 'EMAIL_NOT_VERIFIED' });
    const guess = await server.api.post('/auth/local/verify-email', { body: { email: NEW_HIRE, code: '00000000' }, expect: 401 });
    t.match(guess.body.detail, /wrong or has expired/);
  });

  t.test('the real person signs in through single sign-on: the account is theirs, the password gone', async (t) => {
    const login = await acme.startLogin();
    const signedIn = await acme.post(idp.response(acme.options(NEW_HIRE, { inResponseTo: login.id })), login.relayState);
    t.equal(signedIn.status, 302);
    const session = await sessionOf(t, server, sessionCookie(signedIn)!);
    t.equal(session.body.user.email, NEW_HIRE);
    const stored = await server.database.db
      .selectFrom('users')
      .select(['password_hash', 'source', 'email_verified_at'])
      .where('id', '=', session.body.user.id as string)
      .executeTakeFirstOrThrow();
    t.same([stored.password_hash, stored.source], [null, 'saml'], 'the squatter’s password no longer opens it');
    t.ok(stored.email_verified_at, 'the provider vouched for the address');
    await server.api.post('/auth/login', { body: { email: NEW_HIRE, password: SQUATTER_PASSWORD }, expect: 401 });
  });

  t.test('the owner of a mailbox proves it with the mailed code, and may register again over an unproven account', async (t) => {
    const body = { email: 'owner@acme.example', password: 'correct horse battery staple', username: 'owner', displayName: 'Owner' };
    await server.api.post('/auth/local/register', { body: { ...body, password: SQUATTER_PASSWORD, displayName: 'Squatter' }, expect: 202 });
    await server.api.post('/auth/local/register', { body, expect: 202 });
    const proven = await server.api.post('/auth/local/verify-email', {
      body: { email: body.email, code: mailedCode(mail, body.email) },
      expect: 200,
    });
    t.equal(proven.body.user.displayName, 'Owner', 'the second registration replaced the unproven first');
    t.ok(sessionCookie(proven), 'and it is signed in');
    await server.api.post('/auth/login', { body: { email: body.email, password: body.password }, expect: 200 });
    await server.api.post('/auth/login', { body: { email: body.email, password: SQUATTER_PASSWORD }, expect: 401 });
    const again = await server.api.post('/auth/local/register', { body: { ...body, username: 'owner2' }, expect: 409 });
    t.match(again.body, { code: 'DUPLICATE_EMAIL' }, 'a proven account is not replaced');
  });

  t.test('five wrong codes spend the code', async (t) => {
    const body = { email: 'guessed@acme.example', password: 'correct horse battery staple', username: 'guessed', displayName: 'G' };
    await server.api.post('/auth/local/register', { body, expect: 202 });
    const code = mailedCode(mail, body.email);
    const wrong = code === '11111111' ? '22222222' : '11111111';
    for (let i = 0; i < 5; i++)
      await server.api.post('/auth/local/verify-email', { body: { email: body.email, code: wrong }, expect: 401 });
    await server.api.post('/auth/local/verify-email', { body: { email: body.email, code }, expect: 401 });
  });
});
