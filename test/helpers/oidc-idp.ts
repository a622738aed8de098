/**
 * A real OpenID provider for tests: `oidc-provider` run in-process on loopback with a key made at
 * start, a confidential client for the server under test (code flow, PKCE, back-channel logout with
 * session ids), accounts a test adds, and a scripted browser that signs in through the provider's own
 * login form and signs out at its end-session endpoint, after which the provider itself posts the
 * signed logout token to the client.
 */
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import Provider, { type Configuration } from 'oidc-provider';

interface OidcAccount {
  sub: string;
  email: string;
  given_name?: string;
  family_name?: string;
  groups?: string[];
}

/** A cookie jar and `fetch` with manual redirects, for one browser's visits to the provider. */
export class BrowserAgent {
  private readonly cookies = new Map<string, string>();

  async fetch(url: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.cookies.size) headers.set('cookie', [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; '));
    const response = await fetch(url, { ...init, headers, redirect: 'manual' });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair!.indexOf('=');
      this.cookies.set(pair!.slice(0, at).trim(), pair!.slice(at + 1));
    }
    return response;
  }

  /** Follows redirects while they stay under `origin`; the first response that leaves it (or is not a redirect). */
  async follow(url: string, origin: string, init: RequestInit = {}): Promise<Response> {
    let response = await this.fetch(url, init);
    for (let hops = 0; hops < 10; hops++) {
      const location = response.headers.get('location');
      if (response.status < 300 || response.status >= 400 || !location) return response;
      const next = new URL(location, url).toString();
      if (!next.startsWith(origin)) return response;
      url = next;
      response = await this.fetch(url);
    }
    throw new Error('too many redirects');
  }
}

export interface TestOidcProvider {
  issuer: string;
  discoveryUrl: string;
  clientId: string;
  clientSecret: string;
  addAccount(account: OidcAccount): void;
  /** Registers the client's redirect, back-channel logout and post-logout redirect URIs (the provider restarts on the same port). */
  setClient(options: ClientUris): Promise<void>;
  /** Signs `sub` in through the provider's login form; the Location back to the client (code and state), not followed. */
  signIn(authorizationUrl: string, sub: string, agent?: BrowserAgent): Promise<string>;
  /** Signs the agent's user out at the provider, which posts a logout token to the client; whether that was delivered. */
  logout(agent: BrowserAgent): Promise<{ delivered: boolean; error?: string }>;
  /** A logout token signed with the provider's key (or a foreign one), with claim overrides. */
  logoutToken(claims: Record<string, unknown>, options?: { omit?: string[]; sign?: 'provider' | 'foreign' }): Promise<string>;
  close(): Promise<void>;
}

interface ClientUris {
  redirectUri: string;
  backchannelLogoutUri: string;
  postLogoutRedirectUris?: string[];
}

const action = (html: string) => /<form[^>]*action="([^"]+)"/.exec(html)?.[1]?.replace(/&amp;/g, '&');

/** `owner` is a tap test (or the benchmark harness): the provider closes at its teardown. */
export async function startOidcProvider(owner: { teardown(fn: () => Promise<void>): void }): Promise<TestOidcProvider> {
  const accounts = new Map<string, OidcAccount>();
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const signingJwk: JWK = { ...(await exportJWK(privateKey)), kid: 'test-key-1', alg: 'RS256', use: 'sig' };
  const foreign = (await generateKeyPair('RS256', { extractable: true })).privateKey;

  const server = http.createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  const issuer = `http://127.0.0.1:${port}`;
  const clientId = 'schemaforge';
  const clientSecret = `secret-${Math.random().toString(36).slice(2)}-${Date.now()}`;
  let provider: Provider | undefined;
  let client: ClientUris | undefined;

  const configuration = (): Configuration => ({
    clients: client
      ? [
          {
            client_id: clientId,
            client_secret: clientSecret,
            redirect_uris: [client.redirectUri],
            post_logout_redirect_uris: client.postLogoutRedirectUris ?? [],
            backchannel_logout_uri: client.backchannelLogoutUri,
            backchannel_logout_session_required: true,
            grant_types: ['authorization_code'],
            response_types: ['code'],
            token_endpoint_auth_method: 'client_secret_basic',
          },
        ]
      : [],
    jwks: { keys: [signingJwk] },
    cookies: { keys: ['test-cookie-key-1'] },
    pkce: { required: () => true },
    features: {
      devInteractions: { enabled: true },
      backchannelLogout: { enabled: true },
      rpInitiatedLogout: { enabled: true },
    },
    claims: { openid: ['sub'], email: ['email'], profile: ['given_name', 'family_name'], groups: ['groups'] },
    scopes: ['openid', 'email', 'profile', 'groups'],
    // The test's user has consented already: the grant is made on the spot, so no consent form.
    loadExistingGrant: async (ctx) => {
      const grant = new ctx.oidc.provider.Grant({ clientId: ctx.oidc.client!.clientId, accountId: ctx.oidc.session!.accountId! });
      grant.addOIDCScope('openid email profile groups');
      grant.addOIDCClaims(['email', 'given_name', 'family_name', 'groups']);
      await grant.save();
      return grant;
    },
    findAccount: async (_ctx, id) => {
      const account = accounts.get(id);
      if (!account) return undefined;
      return { accountId: id, claims: async () => ({ ...account }) };
    },
    ttl: { Session: 3600, Interaction: 600, Grant: 3600, AccessToken: 600, AuthorizationCode: 60, IdToken: 600 },
  });

  const start = () => {
    provider = new Provider(issuer, configuration());
    const callback = provider.callback();
    server.removeAllListeners('request');
    server.on('request', (req, res) => void callback(req, res));
  };
  start();

  const oidc: TestOidcProvider = {
    issuer,
    discoveryUrl: `${issuer}/.well-known/openid-configuration`,
    clientId,
    clientSecret,
    addAccount: (account) => accounts.set(account.sub, account),
    async setClient(options) {
      client = options;
      start();
    },
    async signIn(authorizationUrl, sub, agent = new BrowserAgent()) {
      const form = await agent.follow(authorizationUrl, issuer);
      const html = await form.text();
      const submit = action(html);
      if (!submit) throw new Error(`no login form (${form.status}): ${html.slice(0, 300)}`);
      const done = await agent.follow(new URL(submit, issuer).toString(), issuer, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ prompt: 'login', login: sub, password: 'any' }),
      });
      const location = done.headers.get('location');
      if (!location) throw new Error(`sign-in did not return to the client (${done.status}): ${(await done.text()).slice(0, 300)}`);
      return location;
    },
    async logout(agent) {
      const outcome = new Promise<{ delivered: boolean; error?: string }>((resolve) => {
        provider!.once('backchannel.success', () => resolve({ delivered: true }));
        provider!.once('backchannel.error', (_ctx: unknown, error: Error) => resolve({ delivered: false, error: error.message }));
      });
      const page = await agent.fetch(`${issuer}/session/end?client_id=${clientId}`);
      const html = await page.text();
      const xsrf = /name="xsrf" value="([^"]+)"/.exec(html)?.[1];
      const confirm = action(html);
      if (!xsrf || !confirm) throw new Error(`no logout form (${page.status}): ${html.slice(0, 300)}`);
      await agent.fetch(new URL(confirm, issuer).toString(), {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ xsrf, logout: 'yes' }),
      });
      return outcome;
    },
    async logoutToken(claims, options = {}) {
      const payload: Record<string, unknown> = {
        iss: issuer,
        aud: clientId,
        iat: Math.floor(Date.now() / 1000),
        jti: `jti-${Math.random().toString(36).slice(2)}`,
        events: { 'http://schemas.openid.net/event/backchannel-logout': {} },
        ...claims,
      };
      for (const name of options.omit ?? []) delete payload[name];
      const key = options.sign === 'foreign' ? foreign : privateKey;
      return new SignJWT(payload).setProtectedHeader({ alg: 'RS256', typ: 'logout+jwt', kid: signingJwk.kid! }).sign(key);
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  owner.teardown(() => oidc.close());
  return oidc;
}
