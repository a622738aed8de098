// test-suite: once (what the server logs is written above the database; the engine adds no line of its own).
/**
 * Secrets never reach the logs: the server runs as a process of its own at LOG_LEVEL=debug, goes
 * through registration and password sign-in (session cookie and bearer token), GraphQL, an operator's
 * JWT, tenants and a SCIM token, webhook registration with a chosen secret, its rotation and a signed
 * delivery to a receiver, and /metrics with its token; then every line it wrote (stdout and stderr) is
 * searched for each secret, password, token and cookie value the flow used or was given. The server
 * runs on a migrated database of its own (test/helpers/server-database.ts).
 */
import net from 'node:net';
import t from 'tap';
import { signToken } from '../../src/auth/jwt.ts';
import { serverDatabaseEnv } from '../helpers/server-database.ts';
import { ensureDistBuilt, startServerProcess } from '../helpers/server-process.ts';
import { startReceiver, writeTestCaFile } from '../helpers/webhook-receiver.ts';

ensureDistBuilt();

t.test('a debug-level run of every credential flow writes none of its secrets', async (t) => {
  // A database made and migrated already (making one is not what this tests).
  const database = await serverDatabaseEnv(t);
  const jwtSecret = 'jwt-secret-for-the-log-scan-0123456789abcdef';
  const secretsKey = 'sealing-key-for-the-log-scan-0123456789abcdef';
  const metricsToken = 'metrics-token-for-the-log-scan-0123456789';
  const server = await startServerProcess({
    via: 'node',
    env: {
      ...database,
      LOG_LEVEL: 'debug',
      AUTH_JWT_SECRET: jwtSecret,
      SECRETS_KEY: secretsKey,
      METRICS_TOKEN: metricsToken,
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      NODE_EXTRA_CA_CERTS: await writeTestCaFile(t),
    },
  });
  t.teardown(() => void server.child.kill('SIGKILL'));
  const receiver = await startReceiver(t);
  const secrets: Record<string, string> = { jwtSecret, secretsKey, metricsToken };
  let requests = 0;
  const call = async (method: string, url: string, init: { token?: string; cookie?: string; body?: unknown } = {}) => {
    requests++;
    const response = await fetch(`${server.base}${url}`, {
      method,
      headers: {
        ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
        ...(init.cookie ? { cookie: init.cookie } : {}),
      },
      ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
    });
    const text = await response.text();
    return { status: response.status, cookie: response.headers.get('set-cookie'), body: text ? JSON.parse(text) : null };
  };

  // A local account: registration signs in at once (no domain asks for proof), then a password sign-in.
  secrets.password = 'a passphrase nobody may read 4821';
  const registered = await call('POST', '/auth/local/register', {
    body: { email: 'lena@example.org', password: secrets.password, username: 'lena', displayName: 'Lena' },
  });
  t.equal(registered.status, 201, JSON.stringify(registered.body));
  secrets.registrationToken = registered.body.token as string;
  secrets.wrongPassword = 'the wrong passphrase 9913';
  t.equal((await call('POST', '/auth/login', { body: { email: 'lena@example.org', password: secrets.wrongPassword } })).status, 401);
  const signedIn = await call('POST', '/auth/login', { body: { email: 'lena@example.org', password: secrets.password } });
  t.equal(signedIn.status, 200);
  secrets.sessionToken = signedIn.body.token as string;
  const cookie = signedIn.cookie!.split(';')[0]!;
  secrets.sessionCookie = cookie.split('=')[1]!;
  t.equal((await call('GET', '/auth/session', { cookie })).status, 200);
  t.equal((await call('POST', '/graphql', { token: secrets.sessionToken, body: { query: '{ users { totalElements } }' } })).status, 200);

  // An operator: tenants, a SCIM token and a provisioned user.
  secrets.operatorJwt = await signToken(jwtSecret, { sub: 'operator', roles: ['ADMIN'] });
  t.equal((await call('POST', '/api/v1/admin/tenants', { token: secrets.operatorJwt, body: { id: 'acme', name: 'Acme' } })).status, 201);
  const issued = await call('POST', '/api/v1/admin/tenants/acme/scim-tokens', { token: secrets.operatorJwt });
  t.equal(issued.status, 201);
  secrets.scimToken = issued.body.token as string;
  const provisioned = await call('POST', '/scim/v2/Users', {
    token: secrets.scimToken,
    body: { schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'], userName: 'max@acme.example' },
  });
  t.equal(provisioned.status, 201);
  t.equal((await call('GET', '/scim/v2/Users?filter=userName%20eq%20%22max@acme.example%22', { token: secrets.scimToken })).status, 200);

  // Webhooks: a chosen secret, a rotation, and a signed delivery.
  secrets.webhookSecret = 'whsec_chosen-by-the-integrator-0123456789';
  const endpoint = await call('POST', '/api/webhooks', {
    token: secrets.operatorJwt,
    body: { url: `${receiver.origin}/hook`, events: ['order.created'], secret: secrets.webhookSecret },
  });
  t.equal(endpoint.status, 201, JSON.stringify(endpoint.body));
  const rotated = await call('POST', `/api/webhooks/${endpoint.body.id}/rotate-secret`, { token: secrets.operatorJwt });
  t.equal(rotated.status, 200, JSON.stringify(rotated.body));
  secrets.rotatedSecret = rotated.body.secret as string;
  t.equal(
    (await call('POST', `/api/webhooks/${endpoint.body.id}/test`, { token: secrets.operatorJwt, body: { event_type: 'order.created' } }))
      .status,
    202,
  );
  await receiver.waitFor(1, 10_000);

  requests++;
  const metrics = await fetch(`${server.base}/metrics`, { headers: { authorization: `Bearer ${metricsToken}` } });
  t.equal(metrics.status, 200);
  await metrics.text();
  t.equal((await call('POST', '/auth/logout', { token: secrets.sessionToken })).status, 200);

  // Something only the debug level writes: a request node's parser refuses.
  const socket = net.connect(server.port, '127.0.0.1');
  socket.end('NOT HTTP\r\n\r\n');
  socket.resume();
  await new Promise((resolve) => socket.on('close', resolve));

  server.child.kill('SIGTERM');
  t.equal(await server.exited, 0);
  const log = server.stdout() + server.stderr();
  const lines = log.split('\n').filter(Boolean);
  const levels = lines.map((l) => (l.startsWith('{') ? (JSON.parse(l) as { level?: number }).level : undefined));
  t.ok(levels.includes(20), 'the debug level was on');
  const accessLines = lines.filter((l) => l.includes('"msg":"request completed"'));
  // At least: the harness also polls the server until it answers.
  t.ok(accessLines.length >= requests, `an access line for each request (${requests} requests, ${lines.length} lines in all)`);
  for (const [name, value] of Object.entries(secrets)) {
    t.ok(value && value.length >= 16, `${name} is a real value`);
    const forms = new Set([value, encodeURIComponent(value), JSON.stringify(value).slice(1, -1)]);
    const leaked = lines.filter((line) => [...forms].some((form) => line.includes(form)));
    t.same(leaked, [], `${name} appears in no log line`);
  }
});
