// test-suite: once (a static page over the published documents).
/**
 * GET /docs: the API reference in a real browser (Debian's Chromium through playwright-core). It
 * opens the catalog document, finds the product-creation operation and shows its request example
 * (read here from the published document, so the test follows the spec); nothing is loaded from
 * outside the server. Off, /docs and its assets are 404. The README's first hour, in the page:
 * Authorize with a user's bearer token, then Try it out and Execute on an operation with its example
 * body answers 201 (the screenshot is docs-try-it-out.png in the temp folder).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import t from 'tap';
import { pageSecurityProblems, watchCspViolations } from '../helpers/page-security.ts';
import { sharedServer } from '../helpers/server.ts';

const CHROMIUM = '/usr/bin/chromium';
type Json = Record<string, any>;

/** The first example of createProduct's JSON request body, wherever the document puts it. */
function createProductExample(): Json {
  const doc = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../../generated/openapi/rest-v1.json'), 'utf8')) as Json;
  const media = doc.paths['/api/v1/products'].post.requestBody.content['application/json'] as Json;
  const schema = media.schema.$ref ? doc.components.schemas[(media.schema.$ref as string).split('/').pop()!] : media.schema;
  const example = media.example ?? (Object.values(media.examples ?? {})[0] as Json | undefined)?.value ?? schema.examples?.[0];
  if (!example?.sku) throw new Error('createProduct has no request example with a sku');
  return example as Json;
}

/** rest-v1's description, as published: its prose is what the page folds away. */
function restV1Description(): string {
  const doc = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../../generated/openapi/rest-v1.json'), 'utf8')) as Json;
  return doc.info.description as string;
}

t.test('the page and its assets are 404 when DOCS is off (the production default)', async (t) => {
  const server = await sharedServer({ env: { DOCS: 'false' } });
  for (const url of ['/', '/docs', '/docs/assets/swagger-ui-bundle.js']) t.equal((await fetch(`${server.baseUrl}${url}`)).status, 404, url);
});

t.test(
  'Chromium opens /docs, finds a product operation and its example',
  { skip: fs.existsSync(CHROMIUM) ? false : `no browser at ${CHROMIUM}` },
  async (t) => {
    const server = await sharedServer();
    const root = await fetch(`${server.baseUrl}/`, { redirect: 'manual' });
    t.equal(root.status, 302, 'the root sends a browser to the reference');
    t.equal(root.headers.get('location'), '/docs');
    const missing = await fetch(`${server.baseUrl}/docs/assets/nope.js`);
    t.equal(missing.status, 404);
    t.match(missing.headers.get('content-type'), /^application\/problem\+json/);

    const example = createProductExample();
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
      ],
    });
    t.teardown(() => browser.close());
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const external: string[] = [];
    page.on('request', (request) => {
      if (!request.url().startsWith(server.baseUrl) && !request.url().startsWith('data:')) external.push(request.url());
    });
    const violations = await watchCspViolations(page);
    const response = await page.goto(`${server.baseUrl}/docs?document=rest-v1`);
    t.same(pageSecurityProblems(response!.headers()), [], 'CSP, nosniff and X-Frame-Options: DENY');
    const operation = page.locator('#operations-products-createProduct');
    await operation.waitFor({ timeout: 30_000 });
    t.match(await page.locator('.information-container').innerText(), /catalog|product/i, 'the catalog document is open');
    await operation.locator('.opblock-summary').first().click();
    const body = operation.locator('.opblock-body');
    await body
      .getByText(`"${example.sku as string}"`)
      .first()
      .waitFor({ timeout: 20_000 });
    t.match(await body.innerText(), new RegExp(`"sku": "${example.sku as string}"`), 'the request example is shown');
    t.ok(await page.getByRole('link', { name: /GraphiQL/ }).count(), 'the page links GraphiQL');
    t.ok(await page.getByRole('link', { name: /GraphQL schema/ }).count(), 'the page links the SDL printout');
    await page.screenshot({ path: path.join(os.tmpdir(), 'docs.png') });
    t.same(external, [], 'the page loads nothing from outside the server');
    t.same(violations, [], 'the page works within its Content-Security-Policy');
    // The policy is in force: a script injected into the page does not run, and is reported.
    await page.addScriptTag({ content: 'window.injected = true;' }).catch(() => undefined);
    t.equal(await page.evaluate('window.injected'), undefined, 'an injected inline script is refused');
    t.ok(violations.length > 0, 'and reported as a violation');
  },
);

t.test(
  'the first screen of /docs shows the first operation; the prose is folded under the title, one click away',
  { skip: fs.existsSync(CHROMIUM) ? false : `no browser at ${CHROMIUM}` },
  async (t) => {
    const server = await sharedServer();
    // A sentence from deep in the prose (under "## Versioning"), which used to fill the first screen.
    const sentence = 'The major version is in the path';
    t.ok(restV1Description().includes(sentence), 'the sentence is in the published description');
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
    });
    t.teardown(() => browser.close());
    const viewport = { width: 1280, height: 800 };
    const page = await browser.newPage({ viewport });
    const violations = await watchCspViolations(page);
    await page.goto(`${server.baseUrl}/docs`);
    const first = page.locator('.opblock').first();
    await first.waitFor({ timeout: 30_000 });
    t.match(await page.locator('.information-container').innerText(), /Version 1 of the REST interface/, 'rest-v1, its lead paragraph');
    const screenshot = path.join(os.tmpdir(), 'docs-first-screen.png');
    await page.screenshot({ path: screenshot });
    t.comment(`screenshot: ${screenshot}`);
    const box = await first.boundingBox();
    t.ok(box && box.y >= 0 && box.y + 20 < viewport.height, `the first operation starts at ${box?.y} px, within ${viewport.height} px`);
    t.equal(await page.evaluate('window.scrollY'), 0, 'without scrolling');
    const about = page.locator('details.sf-about');
    t.match(
      await about.locator('summary').innerText(),
      /^About this API: Versioning · Content negotiation/,
      'the summary names the sections',
    );
    t.notOk(await page.getByText(sentence).isVisible(), 'the prose is folded');
    await about.locator('summary').click();
    await page.getByText(sentence).waitFor({ state: 'visible', timeout: 5_000 });
    t.ok(await page.getByText(sentence).isVisible(), 'and one click opens it');
    t.same(violations, [], 'within the Content-Security-Policy');
  },
);

t.test(
  "the README's first hour in a browser: Authorize with a bearer token, Try it out on POST /api/v1/customers, Execute: 201",
  { skip: fs.existsSync(CHROMIUM) ? false : `no browser at ${CHROMIUM}` },
  async (t) => {
    // The served documents name BASE_URL as their server (by default http://localhost:PORT), which
    // Try it out calls: here the address the test server listens on.
    const server = await sharedServer({ baseUrlIsListenAddress: true });
    // As `npm run token -- --username alice` gives it: a bearer token of a user (no role needed).
    const token = await server.token('alice');
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
    });
    t.teardown(() => browser.close());
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const violations = await watchCspViolations(page);
    await page.goto(`${server.baseUrl}/docs`);
    const operation = page.locator('#operations-customers-createCustomer');
    await operation.waitFor({ timeout: 30_000 });

    // Authorize: the bearer scheme's field, as a reader pastes `echo $TOKEN` into it.
    await page.locator('.auth-wrapper .authorize').first().click();
    const dialog = page.locator('.modal-ux');
    await dialog.locator('input[type=text], input[type=password]').first().fill(token);
    await dialog.locator('.auth-btn-wrapper .authorize').first().click();
    await dialog.locator('.auth-btn-wrapper .btn-done').first().click();

    await operation.locator('.opblock-summary').first().click();
    await operation.getByRole('button', { name: 'Try it out' }).click();
    await operation.getByRole('button', { name: 'Execute' }).click();
    const status = operation.locator('.responses-table.live-responses-table .response .response-col_status').first();
    await status.waitFor({ timeout: 20_000 });
    await page.screenshot({ path: path.join(os.tmpdir(), 'docs-try-it-out.png'), fullPage: false });
    t.equal((await status.innerText()).trim(), '201', 'the example body creates a customer');
    const created = await operation.locator('.live-responses-table .response-col_description pre').first().innerText();
    t.match(created, /"userId": "alice"/, "alice's own customer");
    t.same(violations, [], 'within the Content-Security-Policy');
  },
);

t.test(
  'one click from /docs reaches the event catalog: every event type, who emits it, its example and schema',
  { skip: fs.existsSync(CHROMIUM) ? false : `no browser at ${CHROMIUM}` },
  async (t) => {
    const server = await sharedServer();
    const doc = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../../generated/openapi/webhooks.json'), 'utf8')) as Json;
    const types = Object.keys(doc.webhooks as Json);
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
    });
    t.teardown(() => browser.close());
    const viewport = { width: 1280, height: 800 };
    const page = await browser.newPage({ viewport });
    const violations = await watchCspViolations(page);
    await page.goto(`${server.baseUrl}/docs`);
    await page.locator('.opblock').first().waitFor({ timeout: 30_000 });
    await page.locator('nav.sf').getByRole('link', { name: 'Webhook events' }).click();
    const section = page.locator('#swagger-ui .webhooks');
    await section.waitFor({ timeout: 30_000 });
    t.equal(new URL(page.url()).search, '?document=webhooks', 'the webhooks document');
    t.same(await section.locator('.opblock-summary-path').allInnerTexts(), types, 'each event type of the catalog, in its order');
    // The page scrolls once the section is drawn (its own script: the CSP allows no evaluated string).
    let box = await section.boundingBox();
    // Scrolled into view can leave it a fraction of a pixel above the top (sub-pixel layout).
    const onScreen = (b: typeof box) => b !== null && b.y > -1 && b.y < viewport.height;
    for (let i = 0; i < 50 && !onScreen(box); i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      box = await section.boundingBox();
    }
    t.ok(onScreen(box), `the section starts at ${box?.y} px, on the screen the click opened`);
    const cancelled = section.locator('#operations-webhooks-orderCancelledEvent');
    await cancelled.locator('.opblock-summary').first().click();
    const body = cancelled.locator('.opblock-body');
    await body.getByText('"type": "order.cancelled"').first().waitFor({ timeout: 10_000 });
    t.match(
      await body.innerText(),
      /Emitted by `?POST \/api\/v1\/orders\/\{id\}\/cancel`? \(rest-v1 cancelOrder\)/,
      'the operation that emits it',
    );
    await body.getByRole('tab', { name: 'Schema' }).first().click();
    await body.getByText('Expand all').first().click();
    await body.getByText('A fat order event.').first().waitFor({ timeout: 10_000 });
    t.match(await body.innerText(), /previous_attributes/, 'and the schema of its body, fat and thin');
    await page.screenshot({ path: path.join(os.tmpdir(), 'docs-webhooks.png') });
    t.same(violations, [], 'within the Content-Security-Policy');
  },
);
