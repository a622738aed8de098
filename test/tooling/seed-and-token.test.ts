/**
 * The first hour: `npm run seed` fills a running server through its APIs, `npm run token --
 * --username alice` finds alice's id there and signs her a token the server accepts, and a second
 * seed changes nothing; `npm run token -- --sub` signs any subject with repeatable roles. Both
 * commands are given only the PORT the server listens on, no BASE_URL, as after `PORT=3123 npm run
 * dev`: they find it by the server's own rule (http://localhost:$PORT). Each command runs once as its
 * own process (through tsx, as npm runs it); the other runs call the command's function in this
 * process, with the same settings, as that process calls it (each start costs a second of loading).
 */
// test-suite: once: the commands talk to the server over HTTP; which database is behind it they cannot tell.

import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { freePort } from '../../scripts/lib/free-port.ts';
import { commandStatus } from '../../scripts/operator.ts';
import { seed as seedCommand } from '../../scripts/seed.ts';
import { token as tokenCommand } from '../../scripts/token.ts';
import { loadOpenApiDocument } from '../../src/http/openapi-docs.ts';
import { sharedServer, TEST_JWT_SECRET, type TestServer } from '../helpers/server.ts';

const root = path.resolve(import.meta.dirname, '../..');
const run = promisify(execFile);

type Script = 'token' | 'seed';
interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** The command's settings: PORT set to `server`'s port (or `port`) and no BASE_URL. */
function commandEnv(server: TestServer | { port: number }): NodeJS.ProcessEnv {
  const port = 'port' in server ? server.port : new URL(server.baseUrl).port;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    AUTH_JWT_SECRET: TEST_JWT_SECRET,
    PORT: String(port),
    DATA_DIR: path.join(root, '.data/test-seed'),
  };
  delete env.BASE_URL;
  return env;
}

/** Runs `npm run <script>` as npm runs it (through tsx), as a process of its own. */
function asProcess(server: TestServer | { port: number }, script: Script, ...args: string[]): Promise<Ran> {
  return run(process.execPath, ['--import', 'tsx', `scripts/${script}.ts`, ...args], { cwd: root, env: commandEnv(server) }).then(
    (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
    (e: { code: number; stdout: string; stderr: string }) => e,
  );
}

/** The same command in this process: its exit status, and what it prints as the process's streams would hold it. */
async function command(server: TestServer | { port: number }, script: Script, ...args: string[]): Promise<Ran> {
  const env = commandEnv(server);
  let stdout = '';
  let stderr = '';
  const code = await commandStatus(() => (script === 'token' ? tokenCommand(args, env) : seedCommand(env)), {
    out: (text) => (stdout += `${text}\n`),
    err: (line) => (stderr += `${line}\n`),
  });
  return { code, stdout, stderr };
}

/** The JSON request body example of `POST <path>` in the published document `name`, as "Try it out" fills it in. */
function requestExample(name: string, urlPath: string): unknown {
  const doc = loadOpenApiDocument(name) as Record<string, any>;
  const media = doc.paths[urlPath].post.requestBody.content['application/json'];
  const schema = media.schema.$ref ? doc.components.schemas[String(media.schema.$ref).split('/').pop()!] : media.schema;
  return media.example ?? Object.values<{ value: unknown }>(media.examples ?? {})[0]?.value ?? schema.examples?.[0];
}

t.test('npm run token prints a token the server accepts, with repeatable --role', async (t) => {
  const server = await sharedServer();
  const printed = await asProcess(server, 'token', '--sub', 'alice', '--role', 'ADMIN', '--role', 'EDITOR');
  t.equal(printed.code, 0, printed.stderr);
  const token = printed.stdout.trim();
  t.match(token, /^[\w-]+\.[\w-]+\.[\w-]+$/);
  const claims = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString());
  t.same(claims.roles, ['ADMIN', 'EDITOR']);
  t.equal(claims.sub, 'alice');
  const product = { name: 'Desk', price: 120.5, sku: 'DESK-2', category: 'HOME' };
  await server.api.post('/api/v1/products', { body: product, token, expect: 201 });
});

t.test('seed, then a token by username', async (t) => {
  const server = await sharedServer();

  const seeded = await asProcess(server, 'seed');
  t.equal(seeded.code, 0, seeded.stderr);
  t.match(
    seeded.stdout,
    /^seeded http:\/\/localhost:\d+: users alice, bob, carol; 4 posts and 2 comments; 6 products; customer \S+ with order \S+/,
  );

  const products = await server.v1.GET('/api/v1/products', { params: { query: { size: 50 } } });
  t.same(products.data!.content.map((p) => p.sku).sort(), ['BALL-05', 'BOOK-API-01', 'COFFEE-1KG', 'HDPH-200', 'LAMP-001', 'TEE-GQL-M']);
  const graphql = async (query: string) => {
    const response = await fetch(`${server.baseUrl}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query }),
    });
    return ((await response.json()) as { data: Record<string, any> }).data;
  };
  t.equal((await graphql('{ users { totalElements } }')).users.totalElements, 3);

  const token = await command(server, 'token', '--username', 'alice');
  t.equal(token.code, 0, token.stderr);
  const claims = JSON.parse(Buffer.from(token.stdout.trim().split('.')[1]!, 'base64url').toString()) as { sub: string };
  t.same(
    (await graphql(`{ user(id: ${JSON.stringify(claims.sub)}) { username followerCount } }`)).user,
    { username: 'alice', followerCount: 2 },
    'the token names alice, whom bob and carol follow',
  );
  const orders = await server.api.get('/api/v1/orders', { token: token.stdout.trim(), expect: 200 });
  t.equal(orders.body._embedded.orders.length, 1, 'alice’s token sees her order');

  const again = await command(server, 'seed');
  t.equal(again.code, 0);
  t.match(again.stdout, /already seeded/);
  t.equal((await server.v1.GET('/api/v1/products', { params: { query: { size: 50 } } })).data!.content.length, 6, 'nothing duplicated');

  // "Try it out" with the reference's example bodies, on the seeded data: nothing the seed made is in the way (a SKU, an address).
  const alice = token.stdout.trim();
  const admin = (await command(server, 'token', '--sub', 'operator:try-it-out', '--role', 'ADMIN')).stdout.trim();
  const tries: [document: string, path: string, token?: string][] = [
    ['rest-v1', '/api/v1/products', admin],
    ['rest-v2', '/api/v2/products', admin],
    ['rest-v1', '/api/v1/customers', alice],
    ['auth', '/auth/local/register'],
  ];
  for (const [document, path, bearer] of tries) {
    const body = requestExample(document, path);
    const answer = await server.api.post(path, { body, ...(bearer ? { token: bearer } : {}) });
    t.equal(answer.status, 201, `${document} POST ${path} with its example body: ${answer.text.slice(0, 300)}`);
  }

  const nobody = await command(server, 'token', '--username', 'nobody');
  t.equal(nobody.code, 1);
  t.match(nobody.stderr, /^error: no active user named nobody at http/);
  const elsewhere = await command({ port: await freePort() }, 'token', '--username', 'alice');
  t.equal(elsewhere.code, 1);
  t.match(
    elsewhere.stderr,
    /^error: cannot reach the server at http:\/\/localhost:\d+ \(.*\); is it running, and on that port\? Give this command the PORT \(or BASE_URL\)/,
    'another PORT: the message names the address tried and the setting',
  );
  const both = await command(server, 'token', '--username', 'alice', '--sub', 'x');
  t.equal(both.code, 1);
  t.match(both.stderr, /usage: npm run --silent token -- \(--sub <userId> \| --username <name>\)/);
});
