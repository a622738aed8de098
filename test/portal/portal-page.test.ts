// test-suite: once (a browser on the portal page; what its calls do is tested on both engines elsewhere)
/**
 * The portal page (`/portal`, packages/portal) in Debian's Chromium against real peers on loopback:
 * a link opens it (and a used, expired or unknown one says which), the webhooks flow with an HTTPS
 * receiver (add with the catalog's picker, errors at their fields, the secret shown once and valid, a
 * test event received, the attempt logged, a delivery replayed), SCIM tokens used by a SCIM client,
 * a domain verified through the test DNS server and enforced. Every screen is scanned by axe-core,
 * checked at 390 pixels and photographed; the page runs under a CSP without inline script or style.
 */
import { gzipSync } from 'node:zlib';
import type { Page } from 'playwright-core';
import { verifyWebhook } from '@schemaforge/sdk/webhooks';
import t from 'tap';
import { startDnsServer, type DnsServer } from '../helpers/dns-server.ts';
import { makeSamlKeys } from '../helpers/saml-idp.ts';
import { pageSecurityProblems, watchCspViolations } from '../helpers/page-security.ts';
import { startServer, type TestServer } from '../helpers/server.ts';
import { startReceiver, testCa } from '../helpers/webhook-receiver.ts';
import { checkScreen, sharedBrowser, noBrowser } from './portal-browser.ts';

type Intent = 'sso' | 'domains' | 'scim' | 'webhooks';

let server: TestServer;
let dns: DnsServer;
let admin: string;
let counter = 0;

t.before(async () => {
  dns = await startDnsServer(t);
  server = await startServer(t, {
    baseUrlIsListenAddress: true,
    webhookCa: (await testCa()).cert,
    env: { WEBHOOK_WORKER: 'on', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', DNS_RESOLVER: dns.address },
  });
  admin = await server.token('portal-operator', ['ADMIN']);
});

async function freshTenant(name: string): Promise<string> {
  const id = `portal-page-${++counter}`;
  await server.api.post('/api/v1/admin/tenants', { token: admin, body: { id, name }, expect: 201 });
  return id;
}

async function linkFor(tenantId: string, intents: Intent[]): Promise<string> {
  const created = await server.api.post(`/api/v1/admin/tenants/${tenantId}/portal-links`, { token: admin, body: { intents }, expect: 201 });
  return created.body.url as string;
}

async function newPage(
  browser: Awaited<ReturnType<typeof sharedBrowser>>,
): Promise<{ page: Page; violations: string[]; external: string[] }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.baseUrl });
  const page = await context.newPage();
  const violations = await watchCspViolations(page);
  const external: string[] = [];
  page.on('request', (request) => {
    if (!request.url().startsWith(server.baseUrl)) external.push(request.url());
  });
  return { page, violations, external };
}

t.test('the page and its assets: strict CSP, hashed assets, sizes', async (t) => {
  const page = await fetch(`${server.baseUrl}/portal`);
  t.equal(page.status, 200);
  const headers = Object.fromEntries(page.headers);
  t.same(pageSecurityProblems(headers), [], 'CSP, nosniff, DENY');
  t.match(headers['content-security-policy'], /style-src 'self';/, 'no inline styles either');
  t.notMatch(headers['content-security-policy'], /unsafe/, 'nothing unsafe');
  t.equal(headers['cache-control'], 'no-store');
  const html = await page.text();
  t.notMatch(html, /<script(?![^>]*\ssrc=)[^>]*>/, 'no inline script');
  const assets = [...html.matchAll(/\/portal\/assets\/(portal-[0-9a-f]{12}\.(?:js|css))/g)].map((m) => m[1]!);
  t.equal(assets.length, 2, 'one script and one style sheet');
  for (const name of assets) {
    const asset = await fetch(`${server.baseUrl}/portal/assets/${name}`);
    t.equal(asset.status, 200, name);
    t.equal(asset.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    const body = Buffer.from(await asset.arrayBuffer());
    t.comment(`${name}: ${body.length} bytes, ${gzipSync(body, { level: 9 }).length} gzip`);
    t.ok(gzipSync(body).length < 40_000, `${name} stays small`);
  }
  t.equal((await fetch(`${server.baseUrl}/portal/assets/portal-000000000000.js`)).status, 404, 'only the built assets');
});

t.test('framed only by the origins PORTAL_FRAME_ANCESTORS names', async (t) => {
  const framed = await startServer(t, { env: { PORTAL_FRAME_ANCESTORS: 'https://app.example.com,https://admin.example.com' } });
  const page = await fetch(`${framed.baseUrl}/portal`);
  const policy = page.headers.get('content-security-policy') ?? '';
  t.match(policy, /frame-ancestors https:\/\/app\.example\.com https:\/\/admin\.example\.com(;|$)/, 'the listed origins');
  t.equal(page.headers.get('x-frame-options'), null, 'no X-Frame-Options, whose DENY would overrule them');
  t.match(policy, /script-src 'self';/, 'the rest of the policy unchanged');
  const others = await fetch(`${framed.baseUrl}/graphiql`);
  t.equal(others.headers.get('x-frame-options'), 'DENY', 'other pages still refuse every frame');
});

t.test('links that cannot open the portal say why', { skip: noBrowser }, async (t) => {
  const browser = await sharedBrowser();
  const tenant = await freshTenant('Globex');
  const { page, violations } = await newPage(browser);

  const used = await linkFor(tenant, ['webhooks']);
  await server.api.post('/portal/session', { body: { link: new URL(used).hash.slice('#link='.length) }, expect: 201 });
  await page.goto(used);
  await page.getByText('This portal link has already been used').waitFor();
  t.equal(new URL(page.url()).hash, '', 'the fragment is gone from the address bar');
  await checkScreen(t, page, 'link-used');

  const expired = await linkFor(tenant, ['webhooks']);
  await server.database.db
    .updateTable('portal_links')
    .set({ expires_at: new Date(Date.now() - 60_000) })
    .where('tenant_id', '=', tenant)
    .where('used_at', 'is', null)
    .execute();
  await page.goto(expired);
  await page.getByText('This portal link has expired').waitFor();

  await page.goto(`${server.baseUrl}/portal#link=sfportal_${'x'.repeat(43)}`);
  await page.getByText('This portal link is not valid').waitFor();
  await page.goto(`${server.baseUrl}/portal`);
  await page.getByText('There is no open portal session in this browser').waitFor();
  t.same(violations, [], 'within the CSP');
});

t.test('webhooks: add an endpoint, receive a test event, read the attempt, replay it', { skip: noBrowser }, async (t) => {
  const browser = await sharedBrowser();
  const receiver = await startReceiver(t);
  const tenant = await freshTenant('Acme Corporation');
  const { page, violations, external } = await newPage(browser);

  await page.goto(await linkFor(tenant, ['webhooks']));
  await page.getByText('Acme Corporation').waitFor();
  t.equal(new URL(page.url()).hash, '', 'the link token is not left in the address bar');
  await page.getByText('No endpoints yet').waitFor();
  await checkScreen(t, page, 'webhooks-empty');

  await page.getByRole('button', { name: 'Add endpoint' }).click();
  await page.getByText('user.created').first().waitFor();
  const picker = await Promise.all((await page.locator('.event input[type=checkbox]').all()).map((box) => box.inputValue()));
  t.ok(picker.includes('user.created') && picker.includes('domain.verified'), 'the tenant events of the catalog are offered');
  t.notOk(picker.includes('order.created'), 'platform-only events are not');
  await checkScreen(t, page, 'webhooks-add');

  // Errors come from the server and stand at the field they name.
  await page.getByLabel('Endpoint URL').fill('not a url');
  await page.getByRole('button', { name: 'Add endpoint' }).click();
  const urlField = page.getByLabel('Endpoint URL');
  await page.locator('.field-invalid .field-error').first().waitFor();
  t.equal(await urlField.getAttribute('aria-invalid'), 'true', 'the URL field is marked invalid');
  const describedBy = (await urlField.getAttribute('aria-describedby')) ?? '';
  t.match(await page.locator(`[id="${describedBy.split(' ').pop()}"]`).innerText(), /\S/, 'and its message is linked to it');
  t.ok(await page.locator('#events-error').isVisible(), 'no event chosen: said at the picker');
  await checkScreen(t, page, 'webhooks-add-errors');

  await urlField.fill(`${receiver.origin}/hooks`);
  await page.getByLabel('Description (optional)').fill('Directory sync');
  // By keyboard: the checkbox takes focus and Space ticks it.
  await page.locator('input[value="user.created"]').focus();
  await page.keyboard.press('Space');
  await page.locator('input[value="group.created"]').check();
  await page.getByRole('button', { name: 'Add endpoint' }).click();
  await page.getByText('Endpoint added').waitFor();
  const secret = await page.locator('.secret-value').first().innerText();
  t.match(secret, /\S{24,}/, 'the signing secret is shown once');
  await checkScreen(t, page, 'webhook-endpoint-created');

  await page.getByLabel('Event type').selectOption('group.created');
  await page.getByRole('button', { name: 'Send test event' }).click();
  await page.getByText('A sample group.created event is on its way').waitFor();
  const [delivery] = await receiver.waitFor(1, 15_000);
  const body = JSON.parse(delivery!.rawBody) as { id: string; type: string };
  t.equal(body.type, 'group.created', 'the receiver got the test event');
  const verified = verifyWebhook(delivery!.rawBody, delivery!.headers as Record<string, string>, secret);
  t.ok(verified.ok, 'signed with the secret the portal showed (the SDK verifies it)');

  // The attempt is listed at once; the health counters follow when the worker's completions are
  // written (batched): Refresh reloads both, as a person would press it again.
  for (let tries = 0; !(await page.getByText('1 of 1 attempts').isVisible()); tries++) {
    if (tries === 30) throw new Error('the health never showed the delivered attempt');
    await page.getByRole('button', { name: 'Refresh' }).click();
    await page.waitForTimeout(500);
  }
  await page.getByText('HTTP 200').first().waitFor();
  // The attempt's request: the body its deliveries post, read when the details open.
  await page.locator('.attempt summary').first().click();
  await page.locator('.attempt pre').first().waitFor();
  t.match(await page.locator('.attempt pre').first().innerText(), /"type": "group\.created"/, 'the request body of the attempt');
  await checkScreen(t, page, 'webhook-endpoint-attempts');

  await page
    .getByRole('button', { name: `Replay event ${body.id}` })
    .first()
    .click();
  await page.getByText('Queued again').waitFor();
  const [, again] = await receiver.waitFor(2, 15_000);
  t.equal((JSON.parse(again!.rawBody) as { id: string }).id, body.id, 'the replay delivered the same event again');

  // A time range: every event since yesterday (this endpoint had one), delivered again.
  await page.getByLabel('Only events whose last delivery failed').uncheck();
  await page.getByRole('button', { name: 'Replay range' }).click();
  await page.getByText('1 event queued again').waitFor();
  const [, , third] = await receiver.waitFor(3, 15_000);
  t.equal((JSON.parse(third!.rawBody) as { id: string }).id, body.id, 'the range replay delivered it once more');

  await page.getByRole('button', { name: 'Rotate secret' }).click();
  await page.getByText('New signing secret').waitFor();
  t.not(await page.locator('.secret-value').last().innerText(), secret, 'a rotation shows the new secret');

  await page.getByRole('button', { name: '← All endpoints' }).click();
  await page.getByText('Directory sync').waitFor();
  await checkScreen(t, page, 'webhooks-list');
  t.same(external, [], 'the page loads nothing from elsewhere');
  t.same(violations, [], 'within the CSP');
});

t.test('SCIM: a token made in the portal is used by a SCIM client, then revoked', { skip: noBrowser }, async (t) => {
  const browser = await sharedBrowser();
  const tenant = await freshTenant('Initech');
  const { page, violations } = await newPage(browser);
  await page.goto(await linkFor(tenant, ['scim']));
  await page.getByRole('heading', { name: 'Directory sync (SCIM)' }).waitFor();
  await page.getByText('No tokens yet').waitFor();
  t.equal(
    await page.locator('.secret-value').first().innerText(),
    `${server.baseUrl}/scim/v2`,
    'the base URL to give the identity provider',
  );
  await checkScreen(t, page, 'scim-empty');

  // By keyboard only: Tab from the top of the page to Create token, Enter.
  await page.locator('body').focus();
  for (let tabs = 0; (await page.evaluate<string>('document.activeElement?.textContent?.trim() ?? ""')) !== 'Create token'; tabs++) {
    if (tabs === 30) throw new Error('Create token is not reachable with Tab');
    await page.keyboard.press('Tab');
  }
  t.ok(await page.evaluate<boolean>('document.activeElement.matches(":focus-visible")'), 'the focused control shows its focus');
  await page.keyboard.press('Enter');
  await page.getByText('Token created').waitFor();
  const token = await page.locator('.notice .secret-value').innerText();
  await page.locator('.notice').getByRole('button', { name: 'Copy' }).click();
  t.equal(await page.evaluate('navigator.clipboard.readText()'), token, 'Copy puts the token on the clipboard');
  await checkScreen(t, page, 'scim-token-created');

  const scim = (path: string, init: RequestInit = {}) =>
    fetch(`${server.baseUrl}/scim/v2${path}`, {
      ...init,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/scim+json', ...init.headers },
    });
  const created = await scim('/Users', {
    method: 'POST',
    body: JSON.stringify({
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
      userName: 'ada@initech.example',
      emails: [{ value: 'ada@initech.example', primary: true }],
    }),
  });
  t.equal(created.status, 201, 'the SCIM client provisions a user with the token');
  const again = await scim('/Users', {
    method: 'POST',
    body: JSON.stringify({ schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'], userName: 'ada@initech.example' }),
  });
  t.equal(again.status, 409, 'and is refused a duplicate');

  // The calls arrive in the activity (written after each response: Refresh until they show).
  for (let tries = 0; !(await page.getByText('refused 409').isVisible()); tries++) {
    if (tries === 30) throw new Error('the SCIM calls never showed in the activity');
    await page.getByRole('button', { name: 'Refresh' }).click();
    await page.waitForTimeout(300);
  }
  const activity = await page.locator('.attempts').innerText();
  t.match(activity, /Created User\s+ada@initech\.example/, 'the creation, with the user it made');
  t.match(activity, /Could not create User\s+ada@initech\.example[\s\S]*uniqueness/, 'the refusal, with its scimType');
  t.match(await page.locator('.card').first().innerText(), /last used (?!never)/, 'Refresh shows the token used');
  await checkScreen(t, page, 'scim-activity');

  await page.getByRole('button', { name: /^Revoke token/ }).click();
  await page.getByRole('button', { name: 'Revoke now' }).click();
  await page.getByText('revoked').waitFor();
  t.equal((await scim('/Users')).status, 401, 'the revoked token is refused');
  t.same(violations, [], 'within the CSP');
});

t.test('domains: claim, check before and after the TXT record, enforce single sign-on', { skip: noBrowser }, async (t) => {
  const browser = await sharedBrowser();
  const tenant = await freshTenant('Umbrella');
  const { page, violations } = await newPage(browser);
  await page.goto(await linkFor(tenant, ['domains']));
  await page.getByText('No domains yet').waitFor();
  await checkScreen(t, page, 'domains-empty');

  await page.getByRole('textbox', { name: 'Domain' }).fill('not a domain!');
  await page.getByRole('button', { name: 'Add domain' }).click();
  await page.locator('.field-invalid .field-error').waitFor();
  await checkScreen(t, page, 'domains-add-error');

  await page.getByRole('textbox', { name: 'Domain' }).fill('umbrella-portal.example');
  await page.getByRole('button', { name: 'Add domain' }).click();
  await page.getByRole('heading', { name: 'umbrella-portal.example' }).waitFor();
  const [name, value] = await page.locator('.card .secret-value').allInnerTexts();
  t.equal(name, '_schemaforge-verification.umbrella-portal.example', 'the TXT record to create');

  await page.getByRole('button', { name: 'Check now' }).click();
  await page.locator('.notice-warning').getByText('Not verified yet').waitFor();
  t.match(await page.locator('.notice-warning').innerText(), /\S/, 'the check says what it found');
  await checkScreen(t, page, 'domains-pending');

  // An account at the domain with a password: the enforcement step says it will change its sign-in.
  await server.database.db
    .insertInto('users')
    .values({
      tenant_id: 'default',
      username: 'pat-umbrella',
      email: 'pat@umbrella-portal.example',
      display_name: 'Pat',
      password_hash: 'scrypt$not-used',
    })
    .execute();
  dns.setTxt(name!, [value!]);
  await page.getByRole('button', { name: 'Check now' }).click();
  await page.getByText('verified', { exact: true }).waitFor();
  await page.getByText('1 account has a password').waitFor();
  // Refused while the tenant has no identity provider: the card says why.
  await page.getByRole('button', { name: 'Require single sign-on' }).click();
  await page
    .locator('.card .notice-error')
    .getByText(/no identity provider/)
    .waitFor();
  await checkScreen(t, page, 'domains-enforce-refused');
  const keys = await makeSamlKeys('portal-idp');
  await server.api.put(`/api/v1/admin/tenants/${tenant}/identity-provider`, {
    token: admin,
    body: {
      protocol: 'saml',
      saml: { entityId: 'https://idp.umbrella.example', ssoUrl: 'https://idp.umbrella.example/sso', certificate: keys.certificatePem },
    },
    expect: 200,
  });
  await page.getByRole('button', { name: 'Require single sign-on' }).click();
  await page.getByText('single sign-on required').waitFor();
  const stored = await server.api.get(`/api/v1/admin/tenants/${tenant}/domains/umbrella-portal.example`, { token: admin, expect: 200 });
  t.equal(stored.body.enforceSso, true, 'enforcement is stored');
  await checkScreen(t, page, 'domains-verified');
  t.same(violations, [], 'within the CSP');
});
