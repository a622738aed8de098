/**
 * `npm run --silent scim-token -- --tenant <id>` against a running server (started here on port 0):
 * it prints only a token, creates the tenant when absent, and fails with one line on stderr and a
 * non-zero exit when the server cannot be reached or refuses. Each test runs the command once as its
 * own process (through tsx, as npm runs it: a token on stdout, then a failure on stderr with the exit
 * status); its other runs call the command's function in this process, with the same arguments and
 * settings, as that process calls it (each start costs a second of loading).
 */
// test-suite: once: the command talks to the server over HTTP; which database is behind it it cannot tell.
import { execFile } from 'node:child_process';
import path from 'node:path';
import t from 'tap';
import { sharedServer, TEST_JWT_SECRET } from '../helpers/server.ts';
import { freePort } from '../../scripts/lib/free-port.ts';
import { commandStatus } from '../../scripts/operator.ts';
import { scimToken as scimTokenCommand } from '../../scripts/scim-token.ts';

const root = path.resolve(import.meta.dirname, '../..');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** The command's settings: this process's, quiet, with the test server's secret, then `env`. */
function commandEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  return { ...process.env, NODE_ENV: 'test', LOG_LEVEL: 'silent', AUTH_JWT_SECRET: TEST_JWT_SECRET, ...env };
}

/** Runs the script as npm runs it, without blocking this process, whose event loop serves the requests it makes. */
function asProcess(args: string[], env: Record<string, string>): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'scripts/scim-token.ts', ...args],
      { cwd: root, env: commandEnv(env), encoding: 'utf8' },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** The same command in this process: its exit status, and what it prints as the process's streams would hold it. */
async function scimToken(args: string[], env: Record<string, string>): Promise<Run> {
  let stdout = '';
  let stderr = '';
  const code = await commandStatus(() => scimTokenCommand(args, commandEnv(env)), {
    out: (text) => (stdout += `${text}\n`),
    err: (line) => (stderr += `${line}\n`),
  });
  return { code, stdout, stderr };
}

t.test('prints a token of the tenant, creating the tenant when absent', async (t) => {
  const server = await sharedServer();
  const { scimTokens, tenants } = server.app.services;
  const env = { BASE_URL: server.baseUrl };

  const first = await asProcess(['--tenant', 'acme', '--name', 'Acme Corp'], env);
  t.equal(first.code, 0, first.stderr);
  t.equal(first.stderr, '');
  t.match(first.stdout, /^sfscim_[A-Za-z0-9_-]{43}\n$/, 'stdout is the token and nothing else');
  t.equal(await scimTokens.tenantForToken(first.stdout.trim()), 'acme');
  t.equal((await tenants.get('acme')).name, 'Acme Corp');

  const again = await scimToken(['--tenant', 'acme', '--name', 'Renamed'], env);
  t.equal(again.code, 0, again.stderr);
  t.not(again.stdout, first.stdout, 'a new token each time');
  t.equal(await scimTokens.tenantForToken(again.stdout.trim()), 'acme');
  t.equal(await scimTokens.tenantForToken(first.stdout.trim()), 'acme', 'the first one stays valid');
  t.equal((await tenants.get('acme')).name, 'Acme Corp', 'an existing tenant is left as it is');

  const unnamed = await scimToken(['--tenant', 'globex'], env);
  t.equal(unnamed.code, 0, unnamed.stderr);
  t.equal((await tenants.get('globex')).name, 'globex', 'without --name the tenant is named after its id');

  const existing = await scimToken(['--tenant', 'default'], env);
  t.equal(await scimTokens.tenantForToken(existing.stdout.trim()), 'default');
});

t.test('one line on stderr and a non-zero exit when it cannot get a token', async (t) => {
  const server = await sharedServer();
  // The first case runs as a process of its own: the exit status and stderr of a failure, as npm sees them.
  const cases: [string, string[], Record<string, string>, RegExp][] = [
    [
      'server not reachable',
      ['--tenant', 'acme'],
      { BASE_URL: `http://127.0.0.1:${await freePort()}` },
      /cannot reach the server at http:\/\/127\.0\.0\.1:\d+ \(.*ECONNREFUSED/,
    ],
    ['not a slug', ['--tenant', 'Not A Slug'], { BASE_URL: server.baseUrl }, /tenant Not A Slug was answered 400: .*path\.tenantId/],
    ['another secret', ['--tenant', 'acme'], { BASE_URL: server.baseUrl, AUTH_JWT_SECRET: 'x'.repeat(40) }, /answered 401/],
    ['no tenant', [], { BASE_URL: server.baseUrl }, /usage: npm run --silent scim-token -- --tenant <tenantId>/],
    ['unknown option', ['--tenant', 'acme', '--force'], { BASE_URL: server.baseUrl }, /--force.*usage/],
    ['bad configuration', ['--tenant', 'acme'], { BASE_URL: 'ftp://example.test' }, /invalid configuration: BASE_URL/],
  ];
  for (const [index, [name, args, env, message]] of cases.entries()) {
    const run = await (index === 0 ? asProcess : scimToken)(args, env);
    t.not(run.code, 0, `${name}: exit status`);
    t.equal(run.stdout, '', `${name}: nothing on stdout`);
    t.match(run.stderr, /^error: [^\n]+\n$/, `${name}: one line on stderr`);
    t.match(run.stderr, message, name);
  }
  await t.rejects(server.app.services.tenants.get('acme'), /Tenant not found/, 'nothing was created by the refused calls');
});
