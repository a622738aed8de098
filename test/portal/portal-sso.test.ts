// test-suite: once (a browser on the portal's single sign-on steps; the sign-ins themselves are tested on both engines elsewhere)
/**
 * The portal's single sign-on steps in Debian's Chromium against real peers on loopback: SAML set up
 * with a test identity provider that answers in a browser window of its own (a SAML library signs
 * its responses), OpenID Connect set up against oidc-provider; a test sign-in of each runs the real
 * flow in a new window and the portal shows what the service received, and a refused one shows the
 * check that refused it. Errors stand at the field they are about. Every screen is scanned by
 * axe-core, checked at 390 pixels and photographed.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import t from 'tap';
import { startOidcProvider } from '../helpers/oidc-idp.ts';
import { makeSamlKeys, TestSamlIdp } from '../helpers/saml-idp.ts';
import { watchCspViolations } from '../helpers/page-security.ts';
import { startServer, type TestServer } from '../helpers/server.ts';
import { checkScreen, sharedBrowser, noBrowser } from './portal-browser.ts';

let server: TestServer;
let admin: string;
let counter = 0;

t.before(async () => {
  server = await startServer(t, { baseUrlIsListenAddress: true, env: { ALLOW_INSECURE_IDP: 'true' } });
  admin = await server.token('portal-operator', ['ADMIN']);
});

async function freshTenant(name: string): Promise<string> {
  const id = `portal-sso-${++counter}`;
  await server.api.post('/api/v1/admin/tenants', { token: admin, body: { id, name }, expect: 201 });
  return id;
}

async function openPortal(
  browser: Awaited<ReturnType<typeof sharedBrowser>>,
  tenantId: string,
): Promise<{ page: Page; violations: string[] }> {
  const created = await server.api.post(`/api/v1/admin/tenants/${tenantId}/portal-links`, {
    token: admin,
    body: { intents: ['sso', 'domains'] },
    expect: 201,
  });
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const violations = await watchCspViolations(page);
  await page.goto(created.body.url as string);
  await page.getByRole('heading', { name: 'Single sign-on', level: 1 }).waitFor();
  return { page, violations };
}

/**
 * A SAML identity provider a browser can visit: its SSO URL takes the AuthnRequest (redirect
 * binding) and answers with the auto-posting form real providers send, signed by `idp` (or by
 * other keys, when `forge` says so).
 */
async function browserSamlIdp(tenantId: string) {
  const keys = await makeSamlKeys('portal idp');
  const httpServer = http.createServer();
  await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => httpServer.close(() => resolve())));
  const origin = `http://127.0.0.1:${(httpServer.address() as AddressInfo).port}`;
  const idp = new TestSamlIdp({ entityId: `${origin}/metadata`, ssoUrl: `${origin}/sso`, keys });
  const state = { forgeWith: undefined as Awaited<ReturnType<typeof makeSamlKeys>> | undefined };
  const acsUrl = `${server.baseUrl}/auth/saml/${tenantId}/callback`;
  httpServer.on('request', (req, res) => {
    const request = TestSamlIdp.parseRedirect(`${origin}${req.url}`);
    const response = idp.response({
      acsUrl,
      spEntityId: `${server.baseUrl}/saml/metadata/${tenantId}`,
      nameId: 'grace@hopper.example',
      inResponseTo: request.id,
      attributes: { email: 'grace@hopper.example', firstName: 'Grace', lastName: 'Hopper', groups: ['engineering', 'it-admins'] },
      ...(state.forgeWith ? { keys: state.forgeWith } : {}),
    });
    const field = (name: string, value: string) => `<input type="hidden" name="${name}" value="${value.replace(/"/g, '&quot;')}">`;
    res.setHeader('content-type', 'text/html');
    res.end(
      `<!doctype html><title>Test IdP</title><form method="post" action="${acsUrl}">${field('SAMLResponse', response)}${field('RelayState', request.relayState ?? '')}<button>Continue</button></form><script>document.forms[0].submit()</script>`,
    );
  });
  return { idp, state };
}

t.test('SAML: connect by metadata, test sign-in in its own window, a refused test shows why', { skip: noBrowser }, async (t) => {
  const browser = await sharedBrowser();
  const tenant = await freshTenant('Hopper Industries');
  const { idp, state } = await browserSamlIdp(tenant);
  const { page, violations } = await openPortal(browser, tenant);
  t.equal(await page.locator('.step-current h2').innerText(), '2. Domain', 'the first step not done is the current one');
  t.match(
    await page.locator('.secret-value').first().innerText(),
    `${server.baseUrl}/saml/metadata/${tenant}`,
    'what to register at the provider',
  );
  await checkScreen(t, page, 'sso-start');

  // A metadata file that is not one: the error stands at the field.
  await page.getByLabel('A metadata file').check();
  const xmlField = page.getByLabel('Metadata XML');
  await xmlField.fill('<EntityDescriptor>not metadata');
  await page.getByRole('button', { name: 'Save connection' }).click();
  await page.locator('.field-invalid .field-error').waitFor();
  t.equal(await xmlField.getAttribute('aria-invalid'), 'true', 'the metadata field is marked invalid');
  t.match(await page.locator('.field-invalid .field-error').innerText(), /\S/, 'with the reason');
  await checkScreen(t, page, 'sso-connection-error');

  await xmlField.fill(idp.metadataXml());
  await page.getByRole('button', { name: 'Save connection' }).click();
  await page.getByText('Connection saved').waitFor();
  const stored = await server.api.get(`/api/v1/admin/tenants/${tenant}/identity-provider`, { token: admin, expect: 200 });
  t.equal(stored.body.saml.entityId, idp.entityId, 'the provider is stored');

  // Groups to roles.
  await page.getByLabel('Group 1', { exact: true }).fill('it-admins');
  await page.getByRole('button', { name: 'Save roles' }).click();
  await page.getByText('Roles saved').waitFor();

  // The test sign-in runs in a window of its own, through the provider, and comes back as a report.
  const popup = page.context().waitForEvent('page');
  await page.getByRole('button', { name: 'Run a test sign-in' }).click();
  await (await popup).waitForLoadState();
  await page.getByText('The last test sign-in worked').waitFor({ timeout: 20_000 });
  const report = await page.locator('.notice-success').last().innerText();
  t.match(report, /grace@hopper\.example/, 'the NameID received');
  t.match(report, /ADMIN/, 'the role its group maps to');
  t.ok(await page.getByRole('cell', { name: 'firstName' }).isVisible(), 'the attributes received stand beside the mapping');
  t.equal(await page.locator('.step-current h2').innerText(), '2. Domain', 'still to do: the domain');
  await checkScreen(t, page, 'sso-tested');

  // Signed by a stranger: refused, and the portal says by which check.
  state.forgeWith = await makeSamlKeys('stranger');
  const second = page.context().waitForEvent('page');
  await page.getByRole('button', { name: 'Run a test sign-in' }).click();
  await (await second).waitForLoadState();
  await page.getByText('The last test sign-in was refused').waitFor({ timeout: 20_000 });
  t.match(await page.locator('.notice-error').last().innerText(), /signature/i, 'the check that refused it');
  await checkScreen(t, page, 'sso-test-refused');

  await page.getByRole('button', { name: 'Verify a domain' }).click();
  await page.getByRole('heading', { name: 'Domains', level: 1 }).waitFor();
  t.same(violations, [], 'within the CSP');
});

t.test(
  'OpenID Connect: an issuer that does not answer is refused at its field; a test sign-in at oidc-provider',
  { skip: noBrowser },
  async (t) => {
    const browser = await sharedBrowser();
    const tenant = await freshTenant('Lovelace Labs');
    const oidc = await startOidcProvider(t);
    await oidc.setClient({
      redirectUri: `${server.baseUrl}/auth/oidc/${tenant}/callback`,
      backchannelLogoutUri: `${server.baseUrl}/auth/oidc/${tenant}/backchannel-logout`,
    });
    oidc.addAccount({ sub: 'ada-1', email: 'ada@lovelace.example', given_name: 'Ada', family_name: 'Lovelace', groups: ['admins'] });
    const { page, violations } = await openPortal(browser, tenant);
    await page.getByLabel('OpenID Connect').check();
    t.match(await page.locator('.secret-value').first().innerText(), `/auth/oidc/${tenant}/callback`, 'the redirect URI to register');

    await page.getByLabel('Issuer URL').fill('http://127.0.0.1:9/nothing-here');
    await page.getByLabel('Client ID').fill(oidc.clientId);
    await page.getByLabel('Client secret').fill(oidc.clientSecret);
    await page.getByRole('button', { name: 'Save connection' }).click();
    await page.locator('.field-invalid .field-error').waitFor();
    t.equal(await page.getByLabel('Issuer URL').getAttribute('aria-invalid'), 'true', 'the refusal stands at the issuer');
    await checkScreen(t, page, 'sso-oidc-error');

    await page.getByLabel('Issuer URL').fill(oidc.issuer);
    await page.getByRole('button', { name: 'Save connection' }).click();
    await page.getByText('Connection saved').waitFor();

    const popupEvent = page.context().waitForEvent('page');
    await page.getByRole('button', { name: 'Run a test sign-in' }).click();
    const popup = await popupEvent;
    // oidc-provider's own sign-in form, in the window the portal opened.
    await popup.locator('input[name=login]').fill('ada-1');
    await popup.locator('input[name=password]').fill('any');
    await popup.locator('button[type=submit]').click();
    await page.getByText('The last test sign-in worked').waitFor({ timeout: 20_000 });
    t.match(await page.locator('.notice-success').last().innerText(), /ada@lovelace\.example/, 'what the provider sent');
    await checkScreen(t, page, 'sso-oidc-tested');
    t.same(violations, [], 'within the CSP');
  },
);
