// test-suite: once (the OpenID Connect flow against the provider)
/**
 * OpenID Connect end to end against oidc-provider on loopback: set-up checked by discovery (secret
 * sealed at rest), sign-in through the provider's own login form (code flow, PKCE S256, state,
 * nonce), the session as the principal of a GraphQL `createPost`, then a back-channel logout posted
 * by the provider itself ending that session (and closing its WebSocket); and the refusals: a reused or unknown state, logout
 * tokens that fail any check.
 */
import t from 'tap';
import { BrowserAgent, startOidcProvider, type TestOidcProvider } from '../helpers/oidc-idp.ts';
import { scimClient } from '../helpers/scim.ts';
import { closedWithin, socket } from '../identity/credential-probes.ts';
import { startServer, type TestServer } from '../helpers/server.ts';
import { adminToken, createTenant, sessionCookie, sessionCount, sessionOf } from './sso-fixtures.ts';

const CREATE_POST = 'mutation { createPost(input: { title: "Signed in with OIDC", content: "Hello" }) { id author { id } } }';

let server: TestServer;
let idp: TestOidcProvider;

t.before(async () => {
  idp = await startOidcProvider(t);
  server = await startServer(t, { baseUrlIsListenAddress: true, env: { ALLOW_INSECURE_IDP: 'true' } });
  await createTenant(server, 'globex');
  await idp.setClient({
    redirectUri: `${server.baseUrl}/auth/oidc/globex/callback`,
    backchannelLogoutUri: `${server.baseUrl}/auth/oidc/globex/backchannel-logout`,
  });
  idp.addAccount({ sub: 'u-1001', email: 'olive@globex.example', given_name: 'Olive', family_name: 'Ng', groups: ['admins'] });
  idp.addAccount({ sub: 'u-1002', email: 'otto@globex.example', groups: [] });
  await server.api.put('/api/v1/admin/tenants/globex/identity-provider', {
    token: await adminToken(server),
    body: {
      protocol: 'oidc',
      oidc: {
        issuer: idp.issuer,
        clientId: idp.clientId,
        clientSecret: idp.clientSecret,
        scopes: ['openid', 'email', 'profile', 'groups'],
      },
      roleMapping: { admins: 'ADMIN' },
    },
    expect: 200,
  });
});

/** Signs `sub` in from our login endpoint to our callback, in one browser; the callback's response and the browser. */
async function signIn(sub: string, returnTo = '/home') {
  const agent = new BrowserAgent();
  const start = await agent.fetch(`${server.baseUrl}/auth/oidc/globex/login?returnTo=${encodeURIComponent(returnTo)}`);
  const authorizationUrl = start.headers.get('location')!;
  const callback = await idp.signIn(authorizationUrl, sub, agent);
  const response = await agent.fetch(callback);
  return { agent, authorizationUrl, callback, response };
}

t.test('set-up: discovery is checked, the secret is sealed at rest and never shown', async (t) => {
  const token = await adminToken(server);
  const shown = await server.api.get('/api/v1/admin/tenants/globex/identity-provider', { token, expect: 200 });
  t.equal(shown.body.oidc.clientSecretSet, true);
  t.notMatch(shown.text, idp.clientSecret, 'the secret is not in the response');
  t.same(shown.body.serviceProvider, {
    redirectUri: `${server.baseUrl}/auth/oidc/globex/callback`,
    backchannelLogoutUri: `${server.baseUrl}/auth/oidc/globex/backchannel-logout`,
  });
  const row = await server.database.db
    .selectFrom('identity_providers')
    .selectAll()
    .where('tenant_id', '=', 'globex')
    .executeTakeFirstOrThrow();
  t.notMatch(row.client_secret_enc, idp.clientSecret, 'stored encrypted');
  t.notMatch(JSON.stringify(row.settings), idp.clientSecret);

  const unreachable = await server.api.put('/api/v1/admin/tenants/globex/identity-provider', {
    token,
    body: { protocol: 'oidc', oidc: { issuer: 'http://127.0.0.1:9/nothing', clientId: 'x', clientSecret: 'y' } },
  });
  t.equal(unreachable.status, 400, 'a provider whose discovery fails is refused now');
  t.match(unreachable.body.errors, [{ field: '/oidc/discoveryUrl' }]);
  const plainHttp = await server.api.put('/api/v1/admin/tenants/globex/identity-provider', {
    token,
    body: { protocol: 'oidc', oidc: { issuer: 'http://login.example.com', clientId: 'x', clientSecret: 'y' } },
  });
  t.equal(plainHttp.status, 400, 'http is accepted for loopback only, even with ALLOW_INSECURE_IDP');
  const discover = await server.api.get('/auth/discover?email=olive%40globex.example', { expect: 200 });
  t.same(discover.body, { tenantId: 'default', authMethod: 'local', enforceSso: false }, 'an unverified domain routes nowhere');
});

t.test('sign-in: code flow with PKCE, state and nonce; the session creates a post; back-channel logout ends it', async (t) => {
  const { agent, authorizationUrl, response } = await signIn('u-1001');
  const authorization = new URL(authorizationUrl);
  t.ok(authorizationUrl.startsWith(`${idp.issuer}/auth?`), 'to the provider’s authorization endpoint');
  t.equal(authorization.searchParams.get('code_challenge_method'), 'S256');
  t.ok(authorization.searchParams.get('code_challenge'));
  t.ok(authorization.searchParams.get('state'));
  t.ok(authorization.searchParams.get('nonce'));
  t.equal(authorization.searchParams.get('redirect_uri'), `${server.baseUrl}/auth/oidc/globex/callback`);

  t.equal(response.status, 302, await response.clone().text());
  t.equal(response.headers.get('location'), '/home');
  const token = sessionCookie(response)!;
  const session = await sessionOf(t, server, token, 'cookie');
  t.equal(session.body.authMethod, 'oidc');
  t.equal(session.body.tenantId, 'globex');
  t.same(session.body.roles, ['ADMIN']);
  t.equal(session.body.user.email, 'olive@globex.example');
  const stored = await server.database.db.selectFrom('users').selectAll().where('id', '=', session.body.user.id).executeTakeFirstOrThrow();
  t.equal(stored.source, 'oidc');
  t.equal(stored.family_name, 'Ng');

  const created = await fetch(`${server.baseUrl}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie: `sf_session=${token}`, origin: server.baseUrl },
    body: JSON.stringify({ query: CREATE_POST }),
  });
  const body = (await created.json()) as { data: { createPost: { author: { id: string } } } };
  t.equal(body.data.createPost.author.id, session.body.user.id, 'createPost as the signed-in user');

  const row = await server.database.db
    .selectFrom('sessions')
    .select(['idp_session_id', 'idp_subject'])
    .where('id', '=', session.body.id)
    .executeTakeFirstOrThrow();
  t.ok(row.idp_session_id, 'the provider’s sid is kept');
  t.equal(row.idp_subject, 'u-1001');

  const subscriber = socket(t, server, token);
  await subscriber.connected;
  const loggedOutAt = Date.now();
  const logout = await idp.logout(agent);
  t.same(logout, { delivered: true }, 'the provider posted the logout token and we accepted it');
  const closed = await closedWithin(subscriber, loggedOutAt, 2000);
  t.equal(closed.code, 4403, `the session's WebSocket is closed (${closed.elapsed} ms)`);
  t.equal((await sessionOf(t, server, token, 'cookie')).status, 401, 'the session is over');
  const after = await fetch(`${server.baseUrl}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query: CREATE_POST }),
  });
  t.equal(after.status, 401);
});

t.test('test sign-in reports and signs nobody in; logout offers the provider’s end-session URL', async (t) => {
  const started = await server.api.post('/api/v1/admin/tenants/globex/identity-provider/test-sign-in', {
    token: await adminToken(server),
    expect: 201,
  });
  const before = await sessionCount(server);
  const callback = await idp.signIn(started.body.url, 'u-1002');
  const report = await fetch(callback, { redirect: 'manual' });
  t.equal(report.status, 200);
  const body = (await report.json()) as Record<string, any>;
  t.equal(body.test, true);
  t.equal(body.subject, 'u-1002');
  t.equal(body.mapped.email, 'otto@globex.example');
  t.equal(sessionCookie(report), null);
  t.equal(await sessionCount(server), before, 'no session');
  const kept = await server.api.get('/api/v1/admin/tenants/globex/identity-provider/test-sign-in', {
    token: await adminToken(server),
    expect: 200,
  });
  t.match(kept.body, { protocol: 'oidc', subject: 'u-1002', outcome: body.outcome, refusal: null }, 'kept as the latest test sign-in');
  t.equal(kept.body.mapped.email, 'otto@globex.example');

  // A test the provider refuses is kept too, with what refused it.
  const refusedStart = await server.api.post('/api/v1/admin/tenants/globex/identity-provider/test-sign-in', {
    token: await adminToken(server),
    expect: 201,
  });
  const state = new URL(refusedStart.body.url).searchParams.get('state')!;
  const denied = await fetch(
    `${server.baseUrl}/auth/oidc/globex/callback?state=${state}&error=access_denied&error_description=user+cancelled`,
    {
      redirect: 'manual',
    },
  );
  t.equal(denied.status, 401);
  const refused = await server.api.get('/api/v1/admin/tenants/globex/identity-provider/test-sign-in', {
    token: await adminToken(server),
    expect: 200,
  });
  t.match(refused.body, { protocol: 'oidc', subject: null, mapped: null, outcome: 'refused', refusal: /access_denied \(user cancelled\)/ });

  const { response } = await signIn('u-1002');
  const out = await server.api.post('/auth/logout', { token: sessionCookie(response)!, expect: 200 });
  const endSession = new URL(out.body.providerLogoutUrl);
  t.equal(`${endSession.origin}${endSession.pathname}`, `${idp.issuer}/session/end`, 'the provider’s end_session_endpoint');
  t.equal(endSession.searchParams.get('client_id'), idp.clientId);
});

t.test('a callback is completed only in the browser that started the sign-in (login CSRF)', async (t) => {
  // The attacker starts a sign-in and completes it at the provider with their own account...
  const attacker = new BrowserAgent();
  const start = await attacker.fetch(`${server.baseUrl}/auth/oidc/globex/login`);
  t.match(
    start.headers.getSetCookie().find((c) => c.startsWith('sf_signin='))!,
    /HttpOnly/,
    'the binding cookie is HttpOnly',
  );
  const callback = await idp.signIn(start.headers.get('location')!, 'u-1002', attacker);
  // ...then has the victim's browser (which never started it) follow the callback.
  const before = await sessionCount(server);
  const victim = await new BrowserAgent().fetch(callback);
  t.equal(victim.status, 401);
  t.match(((await victim.json()) as { detail: string }).detail, /not started in this browser/);
  t.equal(sessionCookie(victim), null);
  t.equal(await sessionCount(server), before, 'no session');
});

t.test('the callback accepts the extra parameters providers add (scope, authuser, hd, prompt, session_state, iss)', async (t) => {
  const agent = new BrowserAgent();
  const start = await agent.fetch(`${server.baseUrl}/auth/oidc/globex/login`);
  const callback = new URL(await idp.signIn(start.headers.get('location')!, 'u-1002', agent));
  for (const [name, value] of Object.entries({
    scope: 'openid email profile',
    authuser: '0',
    hd: 'globex.example',
    prompt: 'consent',
    session_state: 'abc.def',
    error_uri: 'https://provider.example/errors',
  })) {
    callback.searchParams.set(name, value);
  }
  const response = await agent.fetch(callback.toString());
  t.equal(response.status, 302, 'signed in');
  t.ok(sessionCookie(response));
});

t.test('a callback is good once; an unknown state or a provider error signs nobody in', async (t) => {
  const { callback, response } = await signIn('u-1002');
  t.equal(response.status, 302);
  const before = await sessionCount(server);
  const again = await fetch(callback, { redirect: 'manual' });
  t.equal(again.status, 401, 'the same code and state again');
  const forged = await fetch(`${server.baseUrl}/auth/oidc/globex/callback?code=abc&state=forged`, { redirect: 'manual' });
  t.equal(forged.status, 401);
  t.match(((await forged.json()) as { detail: string }).detail, /state names no sign-in/);
  const start = await fetch(`${server.baseUrl}/auth/oidc/globex/login`, { redirect: 'manual' });
  const state = new URL(start.headers.get('location')!).searchParams.get('state')!;
  const denied = await fetch(`${server.baseUrl}/auth/oidc/globex/callback?error=access_denied&state=${state}`, { redirect: 'manual' });
  t.equal(denied.status, 401);
  t.match(((await denied.json()) as { detail: string }).detail, /access_denied/);
  t.equal(await sessionCount(server), before, 'no session from any of them');
  const open = await fetch(`${server.baseUrl}/auth/oidc/globex/login?returnTo=${encodeURIComponent('https://evil.example/')}`, {
    redirect: 'manual',
  });
  t.equal(open.status, 400, 'returnTo elsewhere is refused');
  for (const returnTo of ['/.//evil.example', '/%2e%2e//evil.example', '/./\\evil.example', `${server.baseUrl}//evil.example`]) {
    const normalised = await fetch(`${server.baseUrl}/auth/oidc/globex/login?returnTo=${encodeURIComponent(returnTo)}`, {
      redirect: 'manual',
    });
    t.equal(normalised.status, 400, `returnTo ${returnTo} (protocol-relative once normalised) is refused`);
  }
});

t.test('a SCIM-deactivated user cannot sign in through OpenID Connect', async (t) => {
  idp.addAccount({ sub: 'u-1003', email: 'odile@globex.example', groups: [] });
  const first = await signIn('u-1003');
  const token = sessionCookie(first.response)!;
  const userId = (await sessionOf(t, server, token)).body.user.id as string;
  const { token: scimToken } = (
    await server.api.post('/api/v1/admin/tenants/globex/scim-tokens', { token: await adminToken(server), expect: 201 })
  ).body;
  await scimClient(server, 'globex', scimToken).patch(`/Users/${userId}`, [{ op: 'replace', path: 'active', value: false }], {
    expect: 200,
  });
  t.equal((await sessionOf(t, server, token)).status, 401, 'the open session stops at the next request');
  const before = await sessionCount(server);
  const again = await signIn('u-1003');
  t.equal(again.response.status, 401);
  t.match(((await again.response.json()) as { detail: string }).detail, /deactivated/);
  t.equal(sessionCookie(again.response), null);
  t.equal(await sessionCount(server), before);
});

t.test('back-channel logout tokens that fail a check end nothing', async (t) => {
  const { response } = await signIn('u-1001');
  const token = sessionCookie(response)!;
  const { idp_session_id: sid } = await server.database.db
    .selectFrom('sessions')
    .select('idp_session_id')
    .where('id', '=', (await sessionOf(t, server, token)).body.id)
    .executeTakeFirstOrThrow();
  const post = (logoutToken: string) =>
    fetch(`${server.baseUrl}/auth/oidc/globex/backchannel-logout`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ logout_token: logoutToken }),
    });
  const cases: [string, Promise<string>, RegExp][] = [
    ['another audience', idp.logoutToken({ sid, aud: 'someone-else' }), /aud/],
    ['another issuer', idp.logoutToken({ sid, iss: 'http://127.0.0.1:1' }), /iss/],
    ['a nonce', idp.logoutToken({ sid, nonce: 'n' }), /nonce/],
    ['no events claim', idp.logoutToken({ sid }, { omit: ['events'] }), /events/],
    ['a wrong event', idp.logoutToken({ sid, events: { 'urn:other': {} } }), /events/],
    ['neither sid nor sub', idp.logoutToken({}), /neither sid nor sub/],
    ['a key the provider does not publish', idp.logoutToken({ sid }, { sign: 'foreign' }), /signature/],
    ['an old token', idp.logoutToken({ sid, iat: Math.floor(Date.now() / 1000) - 3600 }), /iat|age|old/],
    ['no jti', idp.logoutToken({ sid }, { omit: ['jti'] }), /jti/],
    ['not a JWT', Promise.resolve('not-a-jwt'), /JWS|JWT|Invalid/i],
  ];
  for (const [name, logoutToken, reason] of cases) {
    const r = await post(await logoutToken);
    const body = (await r.json()) as { detail: string; code: string };
    t.equal(r.status, 400, `${name}: 400`);
    t.equal(body.code, 'LOGOUT_TOKEN_REJECTED');
    t.match(body.detail, reason, `${name}: ${body.detail}`);
  }
  t.equal((await sessionOf(t, server, token)).status, 200, 'the session is still good');

  const good = await idp.logoutToken({ sid, jti: 'once-only' });
  const first = await post(good);
  t.equal(first.status, 200);
  t.same(await first.json(), { sessionsEnded: 1 });
  t.equal(first.headers.get('cache-control'), 'no-store');
  const replay = await post(good);
  t.equal(replay.status, 400, 'the same logout token again');
  t.equal((await sessionOf(t, server, token)).status, 401, 'the named session ended');
});
