// test-suite: once (the explorer page and its browser; the queries it runs are tested on both databases elsewhere).
/**
 * GET /graphql/schema and GET /graphiql, each behind its configuration switch, and a real browser
 * (Debian's Chromium through playwright-core) running a query in GraphiQL served from npm assets.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import t from 'tap';
import { typeDefs } from '../../generated/graphql/typedefs.ts';
import { EXAMPLE_QUERY } from '../../src/graphql/explorer-example.ts';
import { pageSecurityProblems, watchCspViolations } from '../helpers/page-security.ts';
import { sharedServer } from '../helpers/server.ts';
import { seed } from './gql.ts';

const CHROMIUM = '/usr/bin/chromium';
const QUERY = '{ searchUsers(query: "browser") { username displayName } }';

t.test('schema printout and explorer are served when enabled', async (t) => {
  const server = await sharedServer();
  const sdl = await fetch(`${server.baseUrl}/graphql/schema`);
  t.equal(sdl.status, 200);
  t.match(sdl.headers.get('content-type'), /^text\/plain/);
  const text = await sdl.text();
  t.equal(text, typeDefs);
  t.match(text, /directive @hasRole/);
  const page = await fetch(`${server.baseUrl}/graphiql`);
  t.equal(page.status, 200);
  const webSocket = `${server.baseUrl.replace(/^http/, 'ws')}/graphql`;
  t.same(pageSecurityProblems(Object.fromEntries(page.headers), { 'connect-src': [webSocket] }), [], 'CSP, nosniff, DENY');
  t.match(page.headers.get('content-security-policy'), `connect-src 'self' ${webSocket};`, 'the WebSocket of this host');
  // fetch sends the real Host; node:http sends whatever it is given.
  const forged = await new Promise<http.IncomingMessage>((resolve, reject) =>
    http
      .get(`${server.baseUrl}/graphiql`, { headers: { host: "evil.example; script-src 'unsafe-inline'" } }, (r) => resolve(r.resume()))
      .on('error', reject),
  );
  const forgedHeaders = forged.headers as Record<string, string>;
  t.same(pageSecurityProblems(forgedHeaders), [], 'a Host header CSP cannot carry adds nothing');
  t.match(forgedHeaders['content-security-policy'], /connect-src 'self';/);
  const html = await page.text();
  t.match(html, /\/graphiql\/assets\/graphiql\.min\.js/);
  t.notMatch(html, /https?:\/\/(?!127\.0\.0\.1)[a-z]/i, 'no CDN: every asset is local');
  for (const asset of [
    'react.production.min.js',
    'react-dom.production.min.js',
    'graphiql.min.js',
    'graphiql.min.css',
    'graphql-ws.min.js',
  ]) {
    const r = await fetch(`${server.baseUrl}/graphiql/assets/${asset}`);
    t.equal(r.status, 200, asset);
    t.ok((await r.arrayBuffer()).byteLength > 1000, `${asset} has content`);
  }
  t.equal((await fetch(`${server.baseUrl}/graphiql/assets/package.json`)).status, 404, 'only the listed assets');
  // graphql's parser, bundled into one self-contained module that the page imports.
  const parser = await fetch(`${server.baseUrl}/graphiql/assets/graphql-parser.mjs`);
  t.equal(parser.status, 200, 'graphql-parser.mjs');
  t.match(parser.headers.get('content-type'), /^text\/javascript/);
  const source = await parser.text();
  t.ok(source.length < 100_000, `one small module (${source.length} bytes), not graphql's whole tree`);
  t.notMatch(source, /\bimport\s*[\s{("'*]/, 'it imports nothing');
  const { parse } = (await import(`data:text/javascript;base64,${Buffer.from(source).toString('base64')}`)) as typeof import('graphql');
  const document = parse('subscription { postCreated { id } }');
  t.equal(document.definitions[0]?.kind, 'OperationDefinition', 'it parses like graphql-js');
  t.throws(() => parse('{ users {'), { name: 'GraphQLError' }, 'and refuses a syntax error');
  for (const name of [
    'graphql/language/parser.mjs',
    'graphql/package.json',
    '..%2Fpackage.json',
    'graphql/language/../../react/package.json',
  ]) {
    t.equal((await fetch(`${server.baseUrl}/graphiql/assets/${name}`)).status, 404, `${name} is not served`);
  }
});

t.test('both are 404 when disabled (the production default)', async (t) => {
  const server = await sharedServer({ env: { GRAPHIQL: 'false', GRAPHQL_SCHEMA_PRINTOUT: 'false' } });
  for (const path of ['/graphql/schema', '/graphiql', '/graphiql/assets/graphiql.min.js', '/graphiql/assets/graphql-parser.mjs']) {
    const r = await fetch(`${server.baseUrl}${path}`);
    t.equal(r.status, 404, path);
  }
});

t.test(
  'GraphiQL in a real browser runs a query and shows the result',
  { skip: fs.existsSync(CHROMIUM) ? false : `no browser at ${CHROMIUM}` },
  async (t) => {
    const server = await sharedServer();
    await seed(server).user('browser_user', 'Seen In Browser');
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    t.teardown(() => browser.close());
    const page = await browser.newPage({ viewport: { width: 1400, height: 800 } });
    const external: string[] = [];
    page.on('request', (request) => {
      if (!request.url().startsWith(server.baseUrl)) external.push(request.url());
    });
    const violations = await watchCspViolations(page);
    const response = await page.goto(`${server.baseUrl}/graphiql`);
    const webSocket = `${server.baseUrl.replace(/^http/, 'ws')}/graphql`;
    t.same(pageSecurityProblems(response!.headers(), { 'connect-src': [webSocket] }), [], 'CSP, nosniff and X-Frame-Options: DENY');
    await page.locator('.graphiql-query-editor .CodeMirror').first().waitFor({ timeout: 20_000 });
    // Replace the editor's text through CodeMirror itself, as typing would, then run it.
    await page.evaluate(`document.querySelector('.graphiql-query-editor .CodeMirror').CodeMirror.setValue(${JSON.stringify(QUERY)})`);
    await page.locator('.graphiql-execute-button').click();
    const result = page.locator('.result-window');
    await result.getByText('Seen In Browser').waitFor({ timeout: 20_000 });
    t.match(await result.innerText(), /"username": "browser_user"/);
    await page.screenshot({ path: '/tmp/graphiql.png' });
    t.same(external, [], 'the page loads nothing from outside the server');
    t.same(violations, [], 'the page works within its Content-Security-Policy');
    // The policy is in force: a script injected into the page does not run, and is reported.
    await page.addScriptTag({ content: 'window.injected = true;' }).catch(() => undefined);
    t.equal(await page.evaluate('window.injected'), undefined, 'an injected inline script is refused');
    t.ok(violations.length > 0, 'and reported as a violation');
  },
);

t.test(
  'GraphiQL opens with the example query, which runs as-is without signing in',
  { skip: fs.existsSync(CHROMIUM) ? false : `no browser at ${CHROMIUM}` },
  async (t) => {
    const server = await sharedServer();
    const s = seed(server);
    const author = await s.user('first_run_author', 'First Run Author');
    await s.post(author.id, 'A post the example shows');
    await s.post(author.id, 'A draft it does not', { status: 'DRAFT' });
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
    });
    t.teardown(() => browser.close());
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const violations = await watchCspViolations(page);
    await page.goto(`${server.baseUrl}/graphiql`);
    await page.locator('.graphiql-query-editor .CodeMirror').first().waitFor({ timeout: 20_000 });
    const editor = (selector: string) => page.evaluate(`document.querySelector('${selector} .CodeMirror').CodeMirror.getValue()`);
    t.equal(await editor('.graphiql-query-editor'), EXAMPLE_QUERY, 'a fresh browser opens on the example');
    t.match(EXAMPLE_QUERY, /^# .*without signing in/, 'which says what it is on its first line');
    await page.locator('.graphiql-execute-button').click();
    // Polled from here: page.waitForFunction with a string evaluates it with eval inside the page, which
    // the page's CSP refuses whenever the answer is not there at the first look.
    for (let waited = 0; !/"data"/.test(String(await editor('.result-window'))); waited += 100) {
      if (waited > 20_000) throw new Error(`no result within 20 s: ${String(await editor('.result-window'))}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const result = JSON.parse((await editor('.result-window')) as string) as {
      data?: { users: { totalElements: number; content: { username: string; posts: { content: { title: string; status: string }[] } }[] } };
      errors?: unknown;
    };
    t.equal(result.errors, undefined, 'no errors');
    t.ok(result.data!.users.totalElements >= 1, 'a page of users');
    const posts = result.data!.users.content.flatMap((user) => user.posts.content);
    t.ok(
      posts.every((post) => post.status !== 'DRAFT'),
      'only public posts',
    );
    const shown = result.data!.users.content.find((user) => user.username === 'first_run_author');
    if (shown)
      t.same(
        shown.posts.content.map((post) => post.title),
        ['A post the example shows'],
        "with the author's post",
      );
    const screenshot = path.join(os.tmpdir(), 'graphiql-first-run.png');
    await page.screenshot({ path: screenshot });
    t.comment(`screenshot: ${screenshot}`);
    t.same(violations, [], 'within the Content-Security-Policy');
  },
);

t.test(
  'GraphiQL in a real browser runs a subscription over the WebSocket',
  { skip: fs.existsSync(CHROMIUM) ? false : `no browser at ${CHROMIUM}` },
  async (t) => {
    const server = await sharedServer();
    const s = seed(server);
    const author = await s.user('live_author');
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
    });
    t.teardown(() => browser.close());
    const page = await browser.newPage({ viewport: { width: 1400, height: 800 } });
    const sockets: string[] = [];
    page.on('websocket', (ws) => sockets.push(ws.url()));
    const violations = await watchCspViolations(page);
    await page.goto(`${server.baseUrl}/graphiql`);
    await page.locator('.graphiql-query-editor .CodeMirror').first().waitFor({ timeout: 20_000 });
    const subscription = `subscription { postCreated(authorId: ${JSON.stringify(author.id)}) { title author { username } } }`;
    await page.evaluate(
      `document.querySelector('.graphiql-query-editor .CodeMirror').CodeMirror.setValue(${JSON.stringify(subscription)})`,
    );
    // Run at once, inside GraphiQL's 100 ms debounce after the edit, as a quick Ctrl-Enter would.
    await page.locator('.graphiql-execute-button').click();
    // The subscription is live once the server has acknowledged it; then publish, through the services.
    const result = page.locator('.result-window');
    const deadline = Date.now() + 20_000;
    let seen = false;
    for (let n = 0; !seen && Date.now() < deadline; n++) {
      await s.post(author.id, `Live post ${n}`);
      seen = await result
        .getByText(/Live post \d+/)
        .first()
        .waitFor({ timeout: 1_000 })
        .then(
          () => true,
          () => false,
        );
    }
    t.ok(seen, 'a post created after subscribing shows in the result pane');
    t.match(await result.innerText(), /"username": "live_author"/);
    t.same(sockets, [`${server.baseUrl.replace('http', 'ws')}/graphql`], 'one WebSocket, to /graphql on the same server');
    t.same(violations, [], 'the WebSocket is allowed by the Content-Security-Policy');
  },
);
