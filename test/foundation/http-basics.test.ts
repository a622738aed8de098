// test-suite: once (the HTTP plumbing)
import t from 'tap';
import http from 'node:http';
import { PassThrough } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { sharedServer, startServer } from '../helpers/server.ts';

t.test('health, readiness, request ids, and Problem Details for routing errors', async (t) => {
  const server = await startServer(t, {
    configure: (app) => {
      app.http.get('/__boom', async () => {
        throw new Error('secret internal detail at /srv/app.ts:42');
      });
    },
  });
  const { api, baseUrl } = server;

  const health = await api.get('/healthz', { expect: 200 });
  t.same(health.body, { status: 'ok' });
  const ready = await api.get('/readyz', { expect: 200 });
  t.same(ready.body, { status: 'ready', database: 'ok' });

  t.test('X-Request-Id is echoed, or minted when absent', async (t) => {
    const echoed = await fetch(`${baseUrl}/healthz`, { headers: { 'x-request-id': 'abc-123' } });
    t.equal(echoed.headers.get('x-request-id'), 'abc-123');
    const minted = await fetch(`${baseUrl}/healthz`);
    t.match(minted.headers.get('x-request-id'), /^[0-9a-f-]{36}$/);
    const hostile = await fetch(`${baseUrl}/healthz`, { headers: { 'x-request-id': 'a b<script>' } });
    t.not(hostile.headers.get('x-request-id'), 'a b<script>');
  });

  t.test('X-Request-Id is on error replies too', async (t) => {
    // Signed in as ADMIN, so that the body parser (not the operation's security) refuses the unparsable JSON.
    const bearer = `Bearer ${await server.token('request-id-admin', ['ADMIN'])}`;
    const replies = {
      'unknown route (404)': await fetch(`${baseUrl}/nope`, { headers: { 'x-request-id': 'req-404' } }),
      'wrong method (405)': await fetch(`${baseUrl}/healthz`, { method: 'DELETE', headers: { 'x-request-id': 'req-405' } }),
      'unparsable JSON (400)': await fetch(`${baseUrl}/api/v1/products`, {
        method: 'POST',
        headers: { 'x-request-id': 'req-400', 'content-type': 'application/json', authorization: bearer },
        body: '{',
      }),
      'bad token (401)': await fetch(`${baseUrl}/api/v1/products`, {
        headers: { 'x-request-id': 'req-401', authorization: 'Bearer nonsense' },
      }),
      'GraphQL executed': await fetch(`${baseUrl}/graphql`, {
        method: 'POST',
        headers: { 'x-request-id': 'req-gql', 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ __typename }' }),
      }),
      'GraphQL refused (406)': await fetch(`${baseUrl}/graphql`, {
        method: 'POST',
        headers: { 'x-request-id': 'req-406', 'content-type': 'application/json', accept: 'text/html' },
        body: JSON.stringify({ query: '{ __typename }' }),
      }),
    };
    const ids = Object.fromEntries(Object.entries(replies).map(([name, r]) => [name, `${r.status} ${r.headers.get('x-request-id')}`]));
    t.same(ids, {
      'unknown route (404)': '404 req-404',
      'wrong method (405)': '405 req-405',
      'unparsable JSON (400)': '400 req-400',
      'bad token (401)': '401 req-401',
      'GraphQL executed': '200 req-gql',
      'GraphQL refused (406)': '406 req-406',
    });
  });

  t.test('unknown route is a 404 problem', async (t) => {
    const r = await fetch(`${baseUrl}/nope/nothing`);
    t.equal(r.status, 404);
    t.equal(r.headers.get('content-type'), 'application/problem+json; charset=utf-8');
    const body = (await r.json()) as any;
    t.match(body, { type: '/problems/not-found', title: 'Not found', status: 404, instance: '/nope/nothing' });
    t.type(body.detail, 'string');
  });

  t.test('known path with the wrong method is a 405 with Allow', async (t) => {
    const r = await fetch(`${baseUrl}/healthz`, { method: 'DELETE' });
    t.equal(r.status, 405);
    t.equal(r.headers.get('allow'), 'GET');
    t.match(await r.json(), { status: 405, type: '/problems/method-not-allowed' });
  });

  t.test('an unexpected error is an opaque 500', async (t) => {
    const r = await fetch(`${baseUrl}/__boom`);
    t.equal(r.status, 500);
    const text = await r.text();
    t.notMatch(text, /secret internal detail|app\.ts|stack/);
    t.match(JSON.parse(text), { status: 500, type: '/problems/internal-error', title: 'Internal server error' });
  });
});

t.test('readiness reports 503 when the database is gone', async (t) => {
  // A server of its own: this one's database is closed under it.
  const server = await startServer(t);
  await server.database.db.destroy();
  const r = await fetch(`${server.baseUrl}/readyz`);
  t.equal(r.status, 503);
  t.match(await r.json(), { status: 503 });
});

t.test('published OpenAPI documents', async (t) => {
  const { api, baseUrl } = await sharedServer();
  const index = await api.get('/openapi', { expect: 200 });
  const names = index.body.documents.map((d: { name: string }) => d.name);
  t.ok(names.includes('rest-v1'));
  for (const doc of index.body.documents) {
    const json = await fetch(`${baseUrl}${doc.json}`);
    t.equal(json.status, 200);
    const parsed = (await json.json()) as any;
    t.equal(parsed.openapi, '3.1.0', `${doc.name} is OpenAPI 3.1`);
    const yaml = await fetch(`${baseUrl}${doc.yaml}`);
    t.equal(yaml.status, 200);
    t.match(yaml.headers.get('content-type'), /yaml/);
    t.match(await yaml.text(), /openapi: 3\.1\.0/);
  }
  const missing = await fetch(`${baseUrl}/openapi/nothing.json`);
  t.equal(missing.status, 404);
});

t.test('closing waits for a response in flight, then closes its kept-alive connection at once', async (t) => {
  const server = await startServer(t, {
    configure: (app) => {
      app.http.get('/__slow', async (_request, reply) => {
        const body = new PassThrough();
        body.write('first ');
        setTimeout(() => body.end('last'), 300);
        return reply.type('text/plain').send(body);
      });
    },
  });
  const agent = new http.Agent({ keepAlive: true });
  t.teardown(() => agent.destroy());
  const response = await new Promise<http.IncomingMessage>((resolve, reject) =>
    http.get(`${server.baseUrl}/__slow`, { agent }, resolve).on('error', reject),
  );
  // The response has begun; the server starts closing while the rest is still to come.
  const closed = server.app.http.close().then(() => 'closed');
  let body = '';
  for await (const chunk of response) body += String(chunk);
  t.equal(body, 'first last', 'the response in flight is sent whole');
  // Without closing that connection, close() would wait for the keep-alive timeout (72 s).
  t.equal(await Promise.race([closed, sleep(10_000, 'still open after 10 s', { ref: false })]), 'closed');
});
