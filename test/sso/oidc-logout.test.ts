// test-suite: once (OpenID Connect RP-initiated logout against the provider)
/**
 * OpenID Connect RP-initiated logout against oidc-provider on loopback: the sign-in's ID token is
 * kept sealed on the session; logout ends the session here, then sends the browser to the provider's
 * end_session_endpoint with `id_token_hint`, `client_id` and `post_logout_redirect_uri`, which the
 * provider accepts (its confirmation, then back to this service); a tampered hint it refuses.
 */
import t from 'tap';
import { BrowserAgent, startOidcProvider, type TestOidcProvider } from '../helpers/oidc-idp.ts';
import { sharedServer, type TestServer } from '../helpers/server.ts';
import { adminToken, createTenant, sessionCookie } from './sso-fixtures.ts';

let server: TestServer;
let idp: TestOidcProvider;

t.before(async () => {
  idp = await startOidcProvider(t);
  server = await sharedServer({ baseUrlIsListenAddress: true, env: { ALLOW_INSECURE_IDP: 'true' } });
  await createTenant(server, 'initech');
  await idp.setClient({
    redirectUri: `${server.baseUrl}/auth/oidc/initech/callback`,
    backchannelLogoutUri: `${server.baseUrl}/auth/oidc/initech/backchannel-logout`,
    postLogoutRedirectUris: [`${server.baseUrl}/`],
  });
  idp.addAccount({ sub: 'u-2001', email: 'peter@initech.example', given_name: 'Peter', groups: [] });
  await server.api.put('/api/v1/admin/tenants/initech/identity-provider', {
    token: await adminToken(server),
    body: {
      protocol: 'oidc',
      oidc: { issuer: idp.issuer, clientId: idp.clientId, clientSecret: idp.clientSecret, scopes: ['openid', 'email', 'profile'] },
    },
    expect: 200,
  });
});

/** Signs `sub` in through the provider in one browser; the browser (its provider session included) and the session token. */
async function signIn(sub: string) {
  const agent = new BrowserAgent();
  const start = await agent.fetch(`${server.baseUrl}/auth/oidc/initech/login`);
  const callback = await idp.signIn(start.headers.get('location')!, sub, agent);
  const response = await agent.fetch(callback);
  if (response.status !== 302) throw new Error(`callback answered ${response.status}: ${await response.text()}`);
  return { agent, token: sessionCookie(response)! };
}

const claimsOf = (jwt: string) => JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString('utf8')) as Record<string, unknown>;

t.test('logout ends the session here and sends the browser to end_session_endpoint, which accepts it', async (t) => {
  const { agent, token } = await signIn('u-2001');
  const row = await server.database.db
    .selectFrom('sessions')
    .select(['idp_id_token_sealed', 'idp_subject'])
    .where('auth_method', '=', 'oidc')
    .where('tenant_id', '=', 'initech')
    .orderBy('created_at', 'desc')
    .executeTakeFirstOrThrow();
  t.equal(row.idp_subject, 'u-2001');
  t.ok(row.idp_id_token_sealed, 'the ID token is kept on the session');
  t.notMatch(row.idp_id_token_sealed, /eyJ/, 'sealed, not in the clear');

  const out = await server.api.post('/auth/logout', { token, expect: 200 });
  t.equal((await server.api.get('/auth/session', { token })).status, 401, 'the session has ended here before the provider is asked');
  const url = new URL(out.body.providerLogoutUrl);
  t.equal(`${url.origin}${url.pathname}`, `${idp.issuer}/session/end`, 'the discovery document’s end_session_endpoint');
  t.equal(url.searchParams.get('client_id'), idp.clientId);
  t.equal(url.searchParams.get('post_logout_redirect_uri'), `${server.baseUrl}/`);
  const hint = url.searchParams.get('id_token_hint')!;
  t.match(claimsOf(hint), { iss: idp.issuer, aud: idp.clientId, sub: 'u-2001' }, 'id_token_hint is the sign-in’s ID token');

  // The provider refuses a hint it did not sign...
  const [header, payload] = hint.split('.');
  const tampered = new URL(url);
  tampered.searchParams.set('id_token_hint', `${header}.${payload}.${Buffer.from('not the signature').toString('base64url')}`);
  const refused = await new BrowserAgent().fetch(tampered.toString());
  t.equal(refused.status, 400, 'oidc-provider refuses a tampered id_token_hint');

  // ...and accepts ours: its confirmation page, then back to this service.
  const page = await agent.fetch(url.toString());
  t.equal(page.status, 200, 'the provider shows its logout confirmation');
  const html = await page.text();
  const xsrf = /name="xsrf" value="([^"]+)"/.exec(html)?.[1];
  const confirm = /<form[^>]*action="([^"]+)"/.exec(html)?.[1]?.replace(/&amp;/g, '&');
  t.ok(xsrf && confirm, 'with its form');
  const done = await agent.fetch(new URL(confirm!, idp.issuer).toString(), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ xsrf: xsrf!, logout: 'yes' }),
  });
  t.ok([302, 303].includes(done.status), `the provider redirects (${done.status})`);
  const back = new URL(done.headers.get('location')!, idp.issuer);
  t.equal(`${back.origin}${back.pathname}`, `${server.baseUrl}/`, 'to the post_logout_redirect_uri of this service');
});
