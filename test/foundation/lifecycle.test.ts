// test-suite: once (`npm start` runs on its own embedded database whatever TEST_DATABASE_URL says)
/**
 * The operator contract end to end: `npm start` serves GraphQL,
 * stops on SIGTERM with exit code 0, and keeps its data across a restart.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { createTestDatabase } from '../helpers/database.ts';
import { graphqlAt as graphql, startServerProcess } from '../helpers/server-process.ts';

// Exactly what an operator runs: `npm start`, so that signal forwarding through npm is covered too.
const startProcess = (env: Record<string, string>) => startServerProcess({ env, via: 'npm' });

t.test('start, serve, SIGTERM, restart with the data kept', async (t) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'schemaforge-data-'));
  const { target, drop } = await createTestDatabase();
  t.teardown(async () => {
    fs.rmSync(dataDir, { recursive: true, force: true });
    await drop();
  });
  // On the PostgreSQL run the process uses the test server; otherwise the embedded default under DATA_DIR.
  const env: Record<string, string> = { DATA_DIR: dataDir, DATABASE_URL: target.kind === 'postgres' ? target.url : '' };

  const first = await startProcess(env);
  const startLine = () =>
    first
      .stdout()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => (JSON.parse(line) as { msg?: string }).msg)
      .find((msg) => msg?.startsWith('server started'));
  // The line is written as the server starts listening; the pipe may deliver it a moment later.
  for (let waited = 0; !startLine() && waited < 5000; waited += 100) await new Promise((r) => setTimeout(r, 100));
  const started = startLine();
  t.match(
    started,
    /^server started: http:\/\/\S+ \S+\/graphql \S+\/docs \S+\/graphiql \S+\/openapi$/,
    'the start log names the URLs to open',
  );
  const before = await graphql(first.base, '{ users { totalElements } }');
  t.equal(before.status, 200);
  t.equal(before.body.data.users.totalElements, 0);
  const created = await graphql(
    first.base,
    'mutation { createUser(input: {username: "kept", email: "kept@example.com", displayName: "Kept"}) { id } }',
  );
  t.ok(created.body.data.createUser.id);
  first.child.kill('SIGTERM');
  t.equal(await first.exited, 0, 'SIGTERM exits 0');

  // The restart sets no NODE_ENV: `npm start` then runs as production (the development switches off).
  // On PostgreSQL, production needs the secrets every instance shares, named in the environment.
  const production = { ...env, NODE_ENV: '' };
  if (target.kind === 'postgres') {
    await t.rejects(
      startProcess(production),
      /error: invalid configuration: AUTH_JWT_SECRET: is required when NODE_ENV=production with DATABASE_URL/,
    );
    Object.assign(production, { AUTH_JWT_SECRET: 'j'.repeat(40), SECRETS_KEY: 's'.repeat(40) });
  }
  const second = await startProcess(production);
  const after = await graphql(second.base, '{ users { totalElements content { username } } }');
  t.same(after.body.data.users, { totalElements: 1, content: [{ username: 'kept' }] });
  t.equal((await fetch(`${second.base}/graphiql`)).status, 404, 'npm start without NODE_ENV is production: no GraphiQL');
  t.equal((await fetch(`${second.base}/docs`)).status, 404, 'no API reference page');
  t.equal((await fetch(`${second.base}/graphql/schema`)).status, 404, 'no schema printout');
  second.child.kill('SIGINT');
  t.equal(await second.exited, 0, 'SIGINT exits 0');
});
