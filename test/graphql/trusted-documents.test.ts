// test-suite: once (admission happens before execution; the registration script's PostgreSQL part needs the server)
/**
 * Trusted documents (GRAPHQL_TRUSTED_DOCUMENTS): a registered client's documents run by id (POST,
 * GET, Apollo's persistedQuery extension) and by text in any spacing; the SDK's own operations run
 * unregistered; any other text is refused with UNTRUSTED_DOCUMENT over HTTP and WebSocket, an
 * unknown id with PERSISTED_QUERY_NOT_FOUND. Registration is all or nothing. Without the setting,
 * text runs as before and ids still resolve. `npm run trusted-documents` on PostgreSQL: a refused and
 * a successful run as processes of their own (through tsx, as npm runs it), the others calling the
 * command's function in this process, as that process calls it (each start costs seconds of loading).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { print } from 'graphql';
import t, { type Test } from 'tap';
import { ListUsersDocument, OnPostCreatedDocument } from '../../generated/client/graphql.ts';
import { buildGraphQLSchema } from '../../src/graphql/schema.ts';
import { documentIdOf } from '../../src/graphql/trusted/canonical.ts';
import { RegistrationError, registerDocuments } from '../../src/graphql/trusted/registration.ts';
import { trustedDocuments } from '../../scripts/trusted-documents.ts';
import { sharedServer, type TestServer } from '../helpers/server.ts';
import { npmEnvironment } from '../helpers/local-registry.ts';
import { record, wsClient } from './ws-client.ts';

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '../..');
const ENFORCED = { env: { GRAPHQL_TRUSTED_DOCUMENTS: 'true' } };
const schema = buildGraphQLSchema({});

// A client's own operation as the client preset writes it (minified) and its id.
const POST_TITLE = 'query PostTitle($id: ID!) { post(id: $id) { id title } }';
const POST_TITLE_ID = documentIdOf(POST_TITLE);

async function post(server: TestServer, body: Record<string, unknown>, accept = 'application/json') {
  const r = await fetch(`${server.baseUrl}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept },
    body: JSON.stringify(body),
  });
  return { status: r.status, type: r.headers.get('content-type'), body: (await r.json()) as { data?: any; errors?: any[] } };
}

async function get(server: TestServer, params: Record<string, string>) {
  const r = await fetch(`${server.baseUrl}/graphql?${new URLSearchParams(params).toString()}`, { headers: { accept: 'application/json' } });
  return { status: r.status, body: (await r.json()) as { data?: any; errors?: any[] } };
}

/** A published post's id, written through the service. */
async function seededPost(server: TestServer): Promise<string> {
  const author = await server.app.services.users.create({ username: 'trusted', email: 'trusted@example.com', displayName: 'Trusted' });
  const principal = { userId: author.id, roles: [], tenantRoles: [], storedUserId: null, tenantId: null, sessionId: null };
  const created = await server.app.services.posts.create(principal, { title: 'Trusted', content: 'x', status: 'PUBLISHED' });
  return String(created.id);
}

const codeOf = (body: { errors?: any[] }) => body.errors?.[0]?.extensions?.code as string | undefined;

t.test('enforced: registered documents run by id and by text; anything else is refused', async (t) => {
  const server = await sharedServer(ENFORCED);
  const { db } = server.database;
  t.same(await registerDocuments(db, schema, { [POST_TITLE_ID]: POST_TITLE }, 'web'), { added: 1, known: 0 });
  t.same(
    await registerDocuments(db, schema, { [POST_TITLE_ID]: POST_TITLE }, 'web'),
    { added: 0, known: 1 },
    'registering again adds nothing',
  );

  const id = await seededPost(server);
  const expected = { data: { post: { id, title: 'Trusted' } } };
  const byId = await post(server, { documentId: POST_TITLE_ID, variables: { id } });
  t.equal(byId.status, 200);
  t.same(byId.body, expected, 'the registered text ran');

  const viaGet = await get(server, { documentId: POST_TITLE_ID, variables: JSON.stringify({ id }) });
  t.same(viaGet, { status: 200, body: expected }, 'GET with documentId');

  const apollo = await post(server, {
    variables: { id },
    extensions: { persistedQuery: { version: 1, sha256Hash: POST_TITLE_ID.slice('sha256:'.length) } },
  });
  t.same(apollo.body, expected, "Apollo's persistedQuery extension");

  const respaced = await post(server, {
    query: `# the same document\nquery PostTitle($id: ID!) {\n  post(id: $id) {\n    id\n    title\n  }\n}`,
    variables: { id },
  });
  t.same(respaced.body, expected, 'the registered document sent as text, spaced differently');

  const sdk = await post(server, { query: print(ListUsersDocument), variables: { size: 1 } });
  t.notOk(sdk.body.errors, "the SDK's own operation runs unregistered");
  t.ok(sdk.body.data?.users, 'with its data');

  const adHoc = await post(server, { query: '{ users { content { id email } } }' });
  t.equal(adHoc.status, 200, 'application/json: a refused request is a 200 with errors, as graphql-http answers refused documents');
  t.equal(codeOf(adHoc.body), 'UNTRUSTED_DOCUMENT');
  t.equal(adHoc.body.errors?.[0]?.extensions?.errorType, 'BAD_REQUEST');
  t.notOk(adHoc.body.data, 'nothing ran');
  const strict = await post(server, { query: '{ users { content { id } } }' }, 'application/graphql-response+json');
  t.equal(strict.status, 400, 'application/graphql-response+json: 400');
  t.equal(codeOf(strict.body), 'UNTRUSTED_DOCUMENT');
  const adHocGet = await get(server, { query: '{ users { content { id } } }' });
  t.equal(codeOf(adHocGet.body), 'UNTRUSTED_DOCUMENT', 'GET too');

  const unknown = await post(server, { documentId: `sha256:${'0'.repeat(64)}` });
  t.equal(codeOf(unknown.body), 'PERSISTED_QUERY_NOT_FOUND');
  t.match(unknown.body.errors?.[0]?.message, /No document is registered with id sha256:0+/);
  const tooLong = await post(server, { documentId: 'x'.repeat(5000) });
  t.equal(codeOf(tooLong.body), 'PERSISTED_QUERY_NOT_FOUND', 'an overlong id is refused without a lookup');

  // A document registered while the server runs is served at once (no earlier miss was cached).
  const later = 'query Later { users(size: 1) { content { id } } }';
  await registerDocuments(db, schema, { [documentIdOf(later)]: later }, 'web');
  t.notOk((await post(server, { documentId: documentIdOf(later) })).body.errors, 'registered while running');
});

t.test('enforced: the WebSocket transport refuses untrusted subscriptions and runs trusted ones', async (t) => {
  const server = await sharedServer(ENFORCED);
  const client = wsClient(t, server.baseUrl);
  const untrusted = record(client, 'subscription { postCreated { id title content } }');
  await untrusted.until((results) => results.length > 0);
  t.equal(untrusted.results[0]?.errors?.[0]?.extensions?.code, 'UNTRUSTED_DOCUMENT');

  const trusted = record(client, print(OnPostCreatedDocument), {});
  const author = await server.app.services.users.create({ username: 'wsauthor', email: 'wsauthor@example.com', displayName: 'WS' });
  // Publish through the service: the subscription's trust is what is under test.
  for (let attempt = 0; attempt < 50 && !trusted.results.length; attempt++) {
    await server.app.services.posts.create(
      { userId: author.id, roles: [], tenantRoles: [], storedUserId: null, tenantId: null, sessionId: null },
      { title: `Trusted ${attempt}`, content: 'x', status: 'PUBLISHED' },
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  t.notOk(trusted.results[0]?.errors, "the SDK's subscription runs");
  t.match(trusted.results[0]?.data?.postCreated?.title, /^Trusted \d+$/);
  trusted.stop();

  // A registered subscription named by its id, with an empty query (graphql-ws requires a string).
  const text = 'subscription Titles { postCreated { title } }';
  await registerDocuments(server.database.db, schema, { [documentIdOf(text)]: text }, 'web');
  const byId: { data?: any; errors?: any[] }[] = [];
  const stop = client.subscribe({ query: '', documentId: documentIdOf(text) } as { query: string }, {
    next: (value) => void byId.push(value as (typeof byId)[number]),
    error: (error) => void byId.push({ errors: error as any[] }),
    complete: () => undefined,
  });
  for (let attempt = 0; attempt < 50 && !byId.length; attempt++) {
    await server.app.services.posts.create(
      { userId: author.id, roles: [], tenantRoles: [], storedUserId: null, tenantId: null, sessionId: null },
      { title: `By id ${attempt}`, content: 'x', status: 'PUBLISHED' },
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  stop();
  t.match(byId[0], { data: { postCreated: { title: /^By id \d+$/ } } }, 'the subscription ran from its documentId');
  t.notOk(byId[0]?.data?.postCreated?.id, 'with the registered selection');
});

/** A GET with its query string as written (repeated keys and brackets included). */
async function getRaw(server: TestServer, search: string) {
  const r = await fetch(`${server.baseUrl}/graphql?${search}`, { headers: { accept: 'application/json' } });
  return { status: r.status, body: (await r.json()) as { data?: any; errors?: any[] } };
}

/** The first answer of a WebSocket subscribe with this payload, taken as sent. */
function wsFirst(client: ReturnType<typeof wsClient>, payload: Record<string, unknown>) {
  return new Promise<{ data?: any; errors?: any[] }>((resolve) => {
    const stop = client.subscribe(payload as { query: string }, {
      next: (value) => {
        stop();
        resolve(value as { data?: any });
      },
      error: (error) => resolve({ errors: error as any[] }),
      complete: () => undefined,
    });
  });
}

t.test('enforced: a parameter in any other shape than one string (or one JSON object) is refused, never read twice', async (t) => {
  const server = await sharedServer(ENFORCED);
  await registerDocuments(server.database.db, schema, { [POST_TITLE_ID]: POST_TITLE }, 'web');
  const untrusted = '{ __schema { types { name } } }';
  const q = encodeURIComponent(untrusted);
  const refusedShape = (t: Test, r: { status: number; body: { data?: any; errors?: any[] } }, name: string, what: string) => {
    t.equal(r.status, 400, `${what}: 400`);
    t.notOk(r.body.data, `${what}: nothing ran`);
    t.equal(codeOf(r.body), 'BAD_GRAPHQL_REQUEST', what);
    t.match(r.body.errors?.[0]?.message, new RegExp(`^Invalid ${name}`), what);
  };

  // The reported bypass: graphql-http runs the first value, the admission used to see an array.
  refusedShape(t, await getRaw(server, `query=${q}&query=x`), 'query', 'GET, the unregistered text first');
  refusedShape(t, await getRaw(server, `query=x&query=${q}`), 'query', 'GET, the unregistered text second');
  refusedShape(t, await getRaw(server, `query%5B%5D=${q}`), 'query', 'GET query[]');
  refusedShape(t, await getRaw(server, `query[]=${q}&query=x`), 'query', 'GET query[] beside query');
  refusedShape(t, await getRaw(server, `documentId=${POST_TITLE_ID}&documentId=x`), 'documentId', 'GET, documentId repeated');
  refusedShape(t, await getRaw(server, `documentId[]=${POST_TITLE_ID}`), 'documentId', 'GET documentId[]');
  const idGet = `documentId=${encodeURIComponent(POST_TITLE_ID)}`;
  refusedShape(t, await getRaw(server, `${idGet}&operationName=PostTitle&operationName=X`), 'operationName', 'GET, operationName repeated');
  refusedShape(t, await getRaw(server, `${idGet}&variables=%7B%7D&variables=%7B%7D`), 'variables', 'GET, variables repeated');
  refusedShape(t, await getRaw(server, `${idGet}&variables=%5B1%5D`), 'variables', 'GET, variables a JSON array');
  refusedShape(t, await getRaw(server, `${idGet}&extensions=%7B%7D&extensions=%7B%7D`), 'extensions', 'GET, extensions repeated');
  refusedShape(t, await getRaw(server, `${idGet}&extensions[a]=1`), 'extensions', 'GET extensions[a]');
  const unknownId = `sha256:${'0'.repeat(64)}`;
  const textAndId = await getRaw(server, `query=${q}&documentId=${encodeURIComponent(unknownId)}`);
  t.equal(codeOf(textAndId.body), 'UNTRUSTED_DOCUMENT', 'GET, text beside an unknown id: the text is what is checked');
  t.notOk(textAndId.body.data);

  refusedShape(t, await post(server, { query: [untrusted] }), 'query', 'POST, query an array');
  refusedShape(t, await post(server, { query: [untrusted], documentId: POST_TITLE_ID }), 'query', 'POST, query an array beside a known id');
  refusedShape(t, await post(server, { query: '', documentId: [POST_TITLE_ID] }), 'documentId', 'POST, documentId an array');
  refusedShape(
    t,
    await post(server, { documentId: POST_TITLE_ID, operationName: ['PostTitle'] }),
    'operationName',
    'POST, operationName an array',
  );
  refusedShape(t, await post(server, { documentId: POST_TITLE_ID, variables: [{ id: '1' }] }), 'variables', 'POST, variables an array');
  refusedShape(
    t,
    await post(server, { extensions: [{ persistedQuery: { sha256Hash: POST_TITLE_ID.slice('sha256:'.length) } }] }),
    'extensions',
    'POST, extensions an array',
  );
  for (const documentId of [unknownId, POST_TITLE_ID]) {
    const both = await post(server, { query: untrusted, documentId });
    t.equal(codeOf(both.body), 'UNTRUSTED_DOCUMENT', `POST, text beside ${documentId === unknownId ? 'an unknown' : 'a registered'} id`);
    t.notOk(both.body.data);
  }

  const client = wsClient(t, server.baseUrl);
  const wsTextAndId = await wsFirst(client, { query: untrusted, documentId: unknownId });
  t.equal(wsTextAndId.errors?.[0]?.extensions?.code, 'UNTRUSTED_DOCUMENT', 'WebSocket, text beside an unknown id');
  t.notOk(wsTextAndId.data);
  const wsArray = await wsFirst(client, { query: '', documentId: [POST_TITLE_ID] });
  t.equal(wsArray.errors?.[0]?.extensions?.code, 'BAD_GRAPHQL_REQUEST', 'WebSocket, documentId an array');
  t.match(wsArray.errors?.[0]?.message, /^Invalid documentId/);

  // The admitted spellings still run: one value each, over GET with every parameter.
  const id = await seededPost(server);
  const whole = await getRaw(
    server,
    `${idGet}&operationName=PostTitle&variables=${encodeURIComponent(JSON.stringify({ id }))}&extensions=%7B%7D`,
  );
  t.same(whole, { status: 200, body: { data: { post: { id, title: 'Trusted' } } } }, 'GET with each parameter once');
});

t.test('registration is all or nothing, and says what is wrong with each document', async (t) => {
  const server = await sharedServer(ENFORCED);
  const bad = 'query Bad { post(id: "1") { subtitle } }';
  const mismatched = 'query Mismatch { users { content { id } } }';
  const error = await registerDocuments(
    server.database.db,
    schema,
    {
      [documentIdOf(POST_TITLE)]: POST_TITLE,
      [documentIdOf(bad)]: bad,
      [`sha256:${'a'.repeat(64)}`]: mismatched,
      broken: 'query {',
      nothing: 42,
    },
    'web',
  ).catch((e: unknown) => e);
  t.ok(error instanceof RegistrationError);
  t.match((error as RegistrationError).problems, [
    /^sha256:\w+: Cannot query field "subtitle" on type "Post"/,
    /^sha256:a+: the id is not the SHA-256 of its text/,
    /^broken: Syntax Error/,
    /^nothing: expected the document's text, got number/,
  ]);
  const rows = await server.database.db.selectFrom('trusted_documents').select('id').execute();
  t.same(rows, [], 'nothing registered, not even the valid document');
  const notAManifest = await registerDocuments(server.database.db, schema, ['not', 'a', 'manifest'], null).catch((e: unknown) => e);
  t.ok(notAManifest instanceof RegistrationError, 'an array is no manifest');
});

t.test('not enforced (the default): any text runs, and ids still resolve', async (t) => {
  const server = await sharedServer();
  t.notOk((await post(server, { query: '{ users { content { id } } }' })).body.errors, 'ad hoc text runs');
  await registerDocuments(server.database.db, schema, { [POST_TITLE_ID]: POST_TITLE }, null);
  const id = await seededPost(server);
  t.same((await post(server, { documentId: POST_TITLE_ID, variables: { id } })).body, { data: { post: { id, title: 'Trusted' } } });
  t.equal(codeOf((await post(server, { documentId: 'sha256:unknown' })).body), 'PERSISTED_QUERY_NOT_FOUND');
});

t.test('npm run trusted-documents: add, list and remove in the configured database', async (t) => {
  const server = await sharedServer(ENFORCED);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trusted-documents-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const manifest = path.join(dir, 'persisted-documents.json');
  fs.writeFileSync(manifest, JSON.stringify({ [POST_TITLE_ID]: POST_TITLE }));
  const asProcess = (args: string[], env: Record<string, string> = {}) =>
    run(process.execPath, ['--import', 'tsx', 'scripts/trusted-documents.ts', ...args], { cwd: root, env: npmEnvironment(env) }).then(
      ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
      (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
    );
  /** The same command in this process: its exit status, and what it prints as the process's streams would hold it. */
  const cli = async (args: string[], env: Record<string, string> = {}) => {
    let stdout = '';
    let stderr = '';
    const code = await trustedDocuments(args, npmEnvironment(env), {
      out: (line) => (stdout += `${line}\n`),
      err: (lines) => (stderr += `${lines}\n`),
    });
    return { code, stdout, stderr };
  };

  const usage = await asProcess(['publish']);
  t.equal(usage.code, 1);
  t.match(usage.stderr, /^usage: npm run trusted-documents -- add/);
  const missing = await cli(['add', path.join(dir, 'nope.json')]);
  t.match(missing.stderr, /^error: .*nope\.json: no such file/);
  fs.writeFileSync(path.join(dir, 'bad.json'), JSON.stringify({ x: 'query { nope }' }));

  if (server.config.database.kind !== 'postgres') {
    t.comment('the rest runs on PostgreSQL: an in-memory PGlite belongs to the server process');
    return;
  }
  const env = { DATABASE_URL: server.config.database.url, AUTH_JWT_SECRET: 'x'.repeat(32), SECRETS_KEY: 'y'.repeat(32) };
  const refused = await cli(['add', path.join(dir, 'bad.json')], env);
  t.equal(refused.code, 1);
  t.match(refused.stderr, /bad\.json: x: Cannot query field "nope" on type "Query"/);
  const added = await asProcess(['add', '--client', 'web', manifest], env);
  t.equal(added.code, 0, added.stderr);
  t.match(added.stdout, /persisted-documents\.json: 1 added, 0 already registered/);
  const id = await seededPost(server);
  t.same(
    (await post(server, { documentId: POST_TITLE_ID, variables: { id } })).body,
    { data: { post: { id, title: 'Trusted' } } },
    'the server runs it',
  );
  const listed = await cli(['list'], env);
  t.match(listed.stdout, new RegExp(`^${POST_TITLE_ID}\\tweb\\t\\d{4}-`));
  const removed = await cli(['remove', '--client', 'web'], env);
  t.match(removed.stdout, /removed 1 document/);
});
