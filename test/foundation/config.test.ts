// test-suite: once (configuration is read before any database is opened; the one start that opens one refuses the same on either).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { resolveJwtSecret, resolveSecretsKey } from '../../src/auth/secret.ts';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { loggerOptions } from '../../src/logger-options.ts';
import { serverDatabaseEnv } from '../helpers/server-database.ts';
import { ensureDistBuilt, root, SERVER_V8_FLAGS } from '../helpers/server-process.ts';

/** The compiled server as `npm start` runs it (`node dist/src/main.js`), waited for. */
function startCompiled(env: Record<string, string>) {
  ensureDistBuilt();
  return spawnSync(process.execPath, [...SERVER_V8_FLAGS, 'dist/src/main.js'], {
    cwd: root,
    env: { ...process.env, ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
}

t.test('defaults follow the operator contract', async (t) => {
  const c = loadConfig({});
  t.equal(c.port, 3000);
  t.equal(c.database.kind, 'pglite-file');
  t.equal(c.graphqlWsInitTimeoutMs, 60_000);
  t.equal(c.graphqlWsKeepAliveMs, 30_000);
  t.equal(c.webhookTimeoutMs, 10_000);
  t.equal(c.webhookDegradedAfter, 50);
  t.equal(c.webhookDisabledAfter, 500);
  t.equal(c.webhookConcurrency, 50);
  t.equal(c.webhookRatePerEndpoint, 100);
  t.same(c.webhookRetryDelaysMs, [60_000, 300_000, 1_800_000, 7_200_000, 28_800_000, 86_400_000]);
  t.equal(c.webhookWorker, true);
  t.equal(c.webhookAllowPrivateTargets, false);
  t.equal(c.webhookSecretOverlapS, 86_400);
  t.equal(c.dnsResolver, null);
  t.equal(c.graphiql, true);
  t.equal(c.docs, true);
  t.equal(c.httpRequestTimeoutMs, 120_000);
  t.equal(loadConfig({ HTTP_REQUEST_TIMEOUT_MS: '500' }).httpRequestTimeoutMs, 500);
  t.equal(loadConfig({ DATABASE_URL: 'memory:' }).database.kind, 'pglite-memory');
  t.same(loadConfig({ DATABASE_URL: 'postgres://u:p@127.0.0.1:5432/db' }).database, {
    kind: 'postgres',
    url: 'postgres://u:p@127.0.0.1:5432/db',
  });
});

t.test('webhook worker switch and the DNS resolver', async (t) => {
  t.equal(loadConfig({ WEBHOOK_WORKER: 'off' }).webhookWorker, false);
  t.equal(loadConfig({ WEBHOOK_WORKER: 'on' }).webhookWorker, true);
  t.same(loadConfig({ DNS_RESOLVER: '127.0.0.1:5353' }).dnsResolver, { host: '127.0.0.1', port: 5353 });
  t.same(loadConfig({ DNS_RESOLVER: '[::1]:53' }).dnsResolver, { host: '::1', port: 53 });
});

t.test('production turns the explorer off; on PostgreSQL it requires a JWT secret and a secrets key', async (t) => {
  const pg = { NODE_ENV: 'production', DATABASE_URL: 'postgres://u:p@db.internal:5432/app' };
  const missing = t.throws(() => loadConfig(pg)) as ConfigError;
  t.equal(missing.variable, 'AUTH_JWT_SECRET');
  const noKey = t.throws(() => loadConfig({ ...pg, AUTH_JWT_SECRET: 'x'.repeat(40) })) as ConfigError;
  t.equal(noKey.variable, 'SECRETS_KEY');
  const embedded = loadConfig({ NODE_ENV: 'production' });
  t.same([embedded.authJwtSecret, embedded.secretsKey], [null, null], 'the embedded database: one node, secrets kept under DATA_DIR');
  t.equal(loadConfig({}, { defaultNodeEnv: 'production' }).nodeEnv, 'production', 'the server entry points default to production');
  t.equal(loadConfig({}).nodeEnv, 'development', 'the operator commands to development');
  const c = loadConfig({ NODE_ENV: 'production', AUTH_JWT_SECRET: 'x'.repeat(40), SECRETS_KEY: 'k'.repeat(32) });
  t.equal(c.graphiql, false);
  t.equal(c.docs, false);
  t.equal(c.graphqlSchemaPrintout, false);
  t.equal(c.secretsKey, 'k'.repeat(32));
  t.equal(c.allowInsecureIdp, false);
  const insecure = t.throws(() =>
    loadConfig({ NODE_ENV: 'production', AUTH_JWT_SECRET: 'x'.repeat(40), SECRETS_KEY: 'k'.repeat(32), ALLOW_INSECURE_IDP: 'true' }),
  ) as ConfigError;
  t.equal(insecure.variable, 'ALLOW_INSECURE_IDP', 'identity providers over http are for tests, never production');
});

t.test('sign-in budgets, trusted proxies and the metrics token are settings', async (t) => {
  const defaults = loadConfig({});
  t.same(defaults.signInBudgets, { login: { perAddress: 30, perAccount: 10 }, register: { perAddress: 10, perAccount: 5 } });
  t.equal(defaults.trustProxy, false, 'no proxy is trusted unless named');
  t.same([defaults.metricsToken, defaults.metrics], [null, null]);
  const set = loadConfig({
    SIGN_IN_ATTEMPTS_PER_ADDRESS: '100',
    SIGN_IN_ATTEMPTS_PER_ACCOUNT: '3',
    REGISTRATIONS_PER_ADDRESS: '20',
    REGISTRATIONS_PER_ACCOUNT: '2',
    TRUST_PROXY: '10.0.0.1, 10.1.0.0/16,::1',
    METRICS_TOKEN: 'm'.repeat(32),
    METRICS_PORT: '9464',
  });
  t.same(set.signInBudgets, { login: { perAddress: 100, perAccount: 3 }, register: { perAddress: 20, perAccount: 2 } });
  t.same(set.trustProxy, ['10.0.0.1', '10.1.0.0/16', '::1']);
  t.same(set.metrics, { port: 9464, host: '127.0.0.1' });
  t.equal(loadConfig({ TRUST_PROXY: 'true' }).trustProxy, true);
  t.equal(loadConfig({ TRUST_PROXY: '2' }).trustProxy, 2, 'a hop count');
});

t.test('the createUser budget and the upload quota are settings', async (t) => {
  t.equal(loadConfig({}).createUserPerAddress, 10);
  t.equal(loadConfig({ CREATE_USER_PER_ADDRESS: '3' }).createUserPerAddress, 3);
  t.equal(loadConfig({}).filesQuotaBytes, 100_000_000);
  t.equal(loadConfig({ FILES_QUOTA_BYTES: '1000' }).filesQuotaBytes, 1000);
});

t.test('WebSocket limits are settings', async (t) => {
  t.same(loadConfig({}).graphqlWsLimits, {
    maxPayloadBytes: 65_536,
    connectionsPerPrincipal: 20,
    connectionsPerAddress: 50,
    subscriptionsPerConnection: 20,
  });
  t.same(
    loadConfig({
      GRAPHQL_WS_MAX_PAYLOAD_BYTES: '1024',
      GRAPHQL_WS_MAX_CONNECTIONS_PER_PRINCIPAL: '2',
      GRAPHQL_WS_MAX_CONNECTIONS_PER_ADDRESS: '3',
      GRAPHQL_WS_MAX_SUBSCRIPTIONS: '4',
    }).graphqlWsLimits,
    { maxPayloadBytes: 1024, connectionsPerPrincipal: 2, connectionsPerAddress: 3, subscriptionsPerConnection: 4 },
  );
});

t.test('single sign-on settings', async (t) => {
  const c = loadConfig({});
  t.equal(c.secretsKey, null, 'generated under DATA_DIR outside production');
  t.equal(c.allowInsecureIdp, false);
  t.equal(c.authSessionTtlS, 8 * 3600);
  t.equal(loadConfig({ ALLOW_INSECURE_IDP: 'true' }).allowInsecureIdp, true);
  t.equal(loadConfig({ AUTH_SESSION_TTL_S: '600' }).authSessionTtlS, 600);
  t.equal(loadConfig({}).samlMetadataRefreshS, 43_200, 'SAML metadata is refreshed every 12 hours by default');
  t.equal(loadConfig({ SAML_METADATA_REFRESH_S: '21600' }).samlMetadataRefreshS, 21_600);
});

t.test('the origins that may frame the portal', async (t) => {
  t.same(loadConfig({}).portalFrameAncestors, [], 'none by default');
  t.same(loadConfig({ PORTAL_FRAME_ANCESTORS: 'https://app.example.com, http://localhost:5173' }).portalFrameAncestors, [
    'https://app.example.com',
    'http://localhost:5173',
  ]);
  for (const bad of [
    'app.example.com',
    'https://app.example.com/settings',
    "https://a.example 'unsafe-inline'",
    'ftp://files.example',
    '*',
  ])
    t.throws(() => loadConfig({ PORTAL_FRAME_ANCESTORS: bad }), { name: 'ConfigError', message: /PORTAL_FRAME_ANCESTORS/ }, bad);
});

t.test('logs are pretty under development and JSON otherwise, unless LOG_FORMAT says', async (t) => {
  const format = (env: Record<string, string>) => loadConfig(env).logFormat;
  t.equal(format({ NODE_ENV: 'development' }), 'pretty', 'npm run dev');
  t.equal(format({}), 'pretty', 'the operator commands (development by default)');
  t.equal(format({ NODE_ENV: 'production' }), 'json');
  t.equal(format({ NODE_ENV: 'test' }), 'json');
  t.equal(loadConfig({}, { defaultNodeEnv: 'production' }).logFormat, 'json', 'npm start without NODE_ENV');
  t.equal(format({ NODE_ENV: 'development', LOG_FORMAT: 'json' }), 'json', 'an explicit json in development');
  t.equal(format({ NODE_ENV: 'production', LOG_FORMAT: 'pretty' }), 'pretty', 'an explicit pretty in production');
  t.equal(format({ NODE_ENV: 'development', LOG_FORMAT: ' ' }), 'pretty', 'empty is unset');

  // What pino is given: JSON is pino's own output; pretty is a transport running pino-pretty.
  const options = (env: Record<string, string>) => loggerOptions(loadConfig(env));
  t.same(options({ NODE_ENV: 'production' }), { level: 'info' }, 'JSON lines, no transport');
  t.same(options({ NODE_ENV: 'development', LOG_FORMAT: 'json' }), { level: 'info' });
  const pretty = options({ NODE_ENV: 'development', LOG_LEVEL: 'debug' });
  t.equal(pretty.level, 'debug');
  const target = (pretty.transport as { target?: string } | undefined)?.target ?? '';
  t.match(target, /node_modules\/pino-pretty\//, 'the installed pino-pretty');
  t.type(((await import(target)) as { default: unknown }).default, 'function', 'which loads as a transport');
  t.same(options({ NODE_ENV: 'development', LOG_LEVEL: 'silent' }), { level: 'silent' }, 'silent starts no transport');
});

t.test('each bad value names its variable', async (t) => {
  const cases: [Record<string, string>, string][] = [
    [{ PORT: 'abc' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ DATABASE_URL: 'nonsense' }, 'DATABASE_URL'],
    [{ BASE_URL: 'ftp://x' }, 'BASE_URL'],
    [{ GRAPHIQL: 'maybe' }, 'GRAPHIQL'],
    [{ DOCS: 'maybe' }, 'DOCS'],
    [{ WEBHOOK_RETRY_DELAYS_MS: '1,a' }, 'WEBHOOK_RETRY_DELAYS_MS'],
    [{ WEBHOOK_DEGRADED_AFTER: '10', WEBHOOK_DISABLED_AFTER: '5' }, 'WEBHOOK_DISABLED_AFTER'],
    [{ AUTH_JWT_SECRET: 'short' }, 'AUTH_JWT_SECRET'],
    [{ NODE_ENV: 'staging' }, 'NODE_ENV'],
    [{ HTTP_REQUEST_TIMEOUT_MS: '0' }, 'HTTP_REQUEST_TIMEOUT_MS'],
    [{ WEBHOOK_WORKER: 'sometimes' }, 'WEBHOOK_WORKER'],
    [{ WEBHOOK_SECRET_OVERLAP_S: '-1' }, 'WEBHOOK_SECRET_OVERLAP_S'],
    [{ DNS_RESOLVER: '127.0.0.1' }, 'DNS_RESOLVER'],
    [{ DNS_RESOLVER: '127.0.0.1:0' }, 'DNS_RESOLVER'],
    [{ DNS_RESOLVER: '::1:53' }, 'DNS_RESOLVER'],
    [{ DNS_RESOLVER: 'resolver.internal:53' }, 'DNS_RESOLVER'],
    [{ DNS_RESOLVER: '999.1.1.1:53' }, 'DNS_RESOLVER'],
    [{ SECRETS_KEY: 'too-short' }, 'SECRETS_KEY'],
    [{ ALLOW_INSECURE_IDP: 'perhaps' }, 'ALLOW_INSECURE_IDP'],
    [{ AUTH_SESSION_TTL_S: '10' }, 'AUTH_SESSION_TTL_S'],
    // The interface document's schedule: 6 to 24 hours.
    [{ SAML_METADATA_REFRESH_S: '3600' }, 'SAML_METADATA_REFRESH_S'],
    [{ SAML_METADATA_REFRESH_S: '172800' }, 'SAML_METADATA_REFRESH_S'],
    [{ SIGN_IN_ATTEMPTS_PER_ADDRESS: '0' }, 'SIGN_IN_ATTEMPTS_PER_ADDRESS'],
    [{ SIGN_IN_ATTEMPTS_PER_ACCOUNT: 'ten' }, 'SIGN_IN_ATTEMPTS_PER_ACCOUNT'],
    [{ REGISTRATIONS_PER_ADDRESS: '-1' }, 'REGISTRATIONS_PER_ADDRESS'],
    [{ REGISTRATIONS_PER_ACCOUNT: '0' }, 'REGISTRATIONS_PER_ACCOUNT'],
    [{ TRUST_PROXY: 'proxy.internal' }, 'TRUST_PROXY'],
    [{ TRUST_PROXY: '10.0.0.0/33' }, 'TRUST_PROXY'],
    [{ METRICS_TOKEN: 'short' }, 'METRICS_TOKEN'],
    [{ GRAPHQL_WS_MAX_PAYLOAD_BYTES: '100' }, 'GRAPHQL_WS_MAX_PAYLOAD_BYTES'],
    [{ GRAPHQL_WS_MAX_CONNECTIONS_PER_PRINCIPAL: '0' }, 'GRAPHQL_WS_MAX_CONNECTIONS_PER_PRINCIPAL'],
    [{ GRAPHQL_WS_MAX_CONNECTIONS_PER_ADDRESS: 'many' }, 'GRAPHQL_WS_MAX_CONNECTIONS_PER_ADDRESS'],
    [{ GRAPHQL_WS_MAX_SUBSCRIPTIONS: '0' }, 'GRAPHQL_WS_MAX_SUBSCRIPTIONS'],
    [{ CREATE_USER_PER_ADDRESS: '0' }, 'CREATE_USER_PER_ADDRESS'],
    [{ FILES_QUOTA_BYTES: '100MB' }, 'FILES_QUOTA_BYTES'],
    [{ METRICS_PORT: '70000' }, 'METRICS_PORT'],
    [{ METRICS_PORT: '9464', METRICS_HOST: 'internal' }, 'METRICS_HOST'],
    [{ LOG_FORMAT: 'text' }, 'LOG_FORMAT'],
  ];
  for (const [env, variable] of cases) {
    const error = t.throws(() => loadConfig(env)) as ConfigError;
    t.equal(error.variable, variable, `${JSON.stringify(env)} names ${variable}`);
  }
});

t.test('npm start with DATABASE_URL=nonsense prints one clear line and exits 1', async (t) => {
  const result = startCompiled({ DATABASE_URL: 'nonsense', NODE_ENV: 'development' });
  t.equal(result.status, 1);
  const lines = result.stderr.trim().split('\n');
  t.equal(lines.length, 1, `one line: ${result.stderr}`);
  t.match(lines[0], /DATABASE_URL/);
});

t.test('a secret file that holds no usable secret stops the start with one line, and is never used', async (t) => {
  // A database made and migrated already: the start opens it before it reads the secrets.
  const database = await serverDatabaseEnv(t);
  const dataDir = database.DATA_DIR!;
  fs.writeFileSync(path.join(dataDir, 'secrets-key'), '\n');
  t.throws(
    () => resolveSecretsKey({ secretsKey: null, dataDir }),
    /secrets-key holds no usable secret .*set SECRETS_KEY, or remove the file/,
  );
  t.equal(fs.readFileSync(path.join(dataDir, 'secrets-key'), 'utf8'), '\n', 'the file is left for the operator to look at');
  const generated = resolveJwtSecret({ authJwtSecret: null, dataDir });
  t.ok(generated.length >= 32, 'a missing file is generated');
  t.equal(resolveJwtSecret({ authJwtSecret: null, dataDir }), generated, 'and kept');
  // Development, where a secret nobody configured is read from (or made in) DATA_DIR.
  const result = startCompiled({ ...database, AUTH_JWT_SECRET: '', SECRETS_KEY: '', NODE_ENV: 'development', PORT: '0' });
  t.equal(result.status, 1);
  const lines = result.stderr.trim().split('\n');
  t.equal(lines.length, 1, `one line: ${result.stderr}`);
  t.match(lines[0], /^error: .*secrets-key holds no usable secret/);
});
