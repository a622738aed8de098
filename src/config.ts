/**
 * The one place that reads the environment. Every other module receives a `Config`.
 * Each variable is parsed by a small typed reader so that a bad value fails start-up with one line
 * naming the variable, instead of surfacing later as an odd runtime error.
 */
import net from 'node:net';
import path from 'node:path';
import { DEFAULT_MAX_COMPLEXITY, DEFAULT_MAX_DEPTH } from './graphql/limit-defaults.ts';

export type DatabaseTarget =
  | { kind: 'pglite-file'; dataDir: string }
  | {
      kind: 'pglite-memory';
      /**
       * A data directory dumped by PGlite's `dumpDataDir('none')`, loaded instead of running initdb.
       * Never read from the environment: the tests pass an already-migrated template (decision 73).
       */
      snapshot?: Blob;
    }
  | { kind: 'postgres'; url: string };

export interface Config {
  nodeEnv: 'development' | 'production' | 'test';
  port: number;
  host: string;
  baseUrl: string;
  dataDir: string;
  database: DatabaseTarget;
  /** Null means "not configured": outside production a secret is generated and kept under DATA_DIR. */
  authJwtSecret: string | null;
  /** Lifetime of a server-side session from its creation, in seconds (AUTH_SESSION_TTL_S). */
  authSessionTtlS: number;
  /**
   * The key stored identity provider client secrets are encrypted with (SECRETS_KEY, at least 32
   * characters). Null: outside production one is generated and kept under DATA_DIR.
   */
  secretsKey: string | null;
  /** Whether identity providers at `http://` loopback addresses are accepted (ALLOW_INSECURE_IDP; tests only). */
  allowInsecureIdp: boolean;
  /**
   * SAML_METADATA_REFRESH_S: a SAML provider's metadata URL is read again once its last success is
   * this old; 6 to 24 hours, the interface document's schedule (12 hours by default, as OIDC discovery).
   */
  samlMetadataRefreshS: number;
  graphiql: boolean;
  /**
   * PORTAL_FRAME_ANCESTORS: the origins whose pages may show the portal (`/portal`) in a frame;
   * empty, the default, lets no page frame it.
   */
  portalFrameAncestors: string[];
  /** Serve the API reference at /docs (Swagger UI over the published OpenAPI documents). */
  docs: boolean;
  graphqlSchemaPrintout: boolean;
  /** GRAPHQL_PLANNER: the look-ahead planner (docs/graphql.md), on by default: an operation it covers whole is one statement. */
  graphqlPlanner: boolean;
  /** GRAPHQL_TRUSTED_DOCUMENTS: run only registered documents and the SDK's own operations. */
  graphqlTrustedDocuments: boolean;
  graphqlWsInitTimeoutMs: number;
  graphqlWsKeepAliveMs: number;
  /** What one WebSocket client may hold open on this instance (src/graphql/ws-limits.ts). */
  graphqlWsLimits: GraphQLWsLimits;
  /** Deepest field nesting a GraphQL operation may have (root fields are depth 1). */
  graphqlMaxDepth: number;
  /** Highest estimated cost of a GraphQL operation (cost model in src/graphql/limits.ts). */
  graphqlMaxComplexity: number;
  webhookRetryDelaysMs: number[];
  webhookTimeoutMs: number;
  webhookDegradedAfter: number;
  webhookDisabledAfter: number;
  webhookConcurrency: number;
  /** How long a successful attempt's record may wait to be written with others (WEBHOOK_FLUSH_MS). */
  webhookFlushMs: number;
  webhookRatePerEndpoint: number;
  webhookAllowPrivateTargets: boolean;
  /** Whether the server process runs a delivery worker itself (WEBHOOK_WORKER=off: only `npm run worker`). */
  webhookWorker: boolean;
  /** How long the previous secret still signs deliveries after a rotation, in seconds. */
  webhookSecretOverlapS: number;
  /**
   * The DNS server names are resolved with (DNS_RESOLVER, `ip:port`), for webhook targets and
   * domain verification; null: the system resolver.
   */
  dnsResolver: { host: string; port: number } | null;
  /** Time a client has to send a whole request (headers within min(this, 60 s)); then 408. */
  httpRequestTimeoutMs: number;
  logLevel: string;
  /**
   * How log lines are written (LOG_FORMAT): `json`, one pino object a line, for whatever collects the
   * logs; `pretty`, coloured lines for a person at a terminal (pino-pretty). Pretty under development.
   */
  logFormat: 'pretty' | 'json';
  /** Sign-in and registration attempts allowed per minute, per client address and per account. */
  signInBudgets: SignInBudgets;
  /** GraphQL `createUser` calls allowed per client address per minute (CREATE_USER_PER_ADDRESS). */
  createUserPerAddress: number;
  /** Total bytes of the files one user may store through `POST /api/v1/files` (FILES_QUOTA_BYTES). */
  filesQuotaBytes: number;
  /**
   * The proxies whose `X-Forwarded-For` names the client (TRUST_PROXY, as Fastify's trustProxy takes
   * it): false (none, the default), true (any), a hop count, or addresses and CIDR ranges.
   */
  trustProxy: boolean | number | string[];
  /** Bearer token /metrics requires on the public port (METRICS_TOKEN); null: not served there. */
  metricsToken: string | null;
  /** A separate listener for /metrics only (METRICS_PORT, on METRICS_HOST); null: none. */
  metrics: { port: number; host: string } | null;
  /** OpenTelemetry tracing (src/ops/tracing/); null, the default, creates no tracer and no span. */
  tracing: TracingConfig | null;
}

export interface TracingConfig {
  /**
   * Where spans are sent, OTLP over HTTP (JSON): OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as given, or
   * OTEL_EXPORTER_OTLP_ENDPOINT with `/v1/traces` appended.
   */
  url: string;
  /** The `service.name` resource attribute (OTEL_SERVICE_NAME; `schemaforge` by default). */
  serviceName: string;
  /** The share of new traces sampled, 0 to 1 (OTEL_TRACES_SAMPLER_ARG; 1 by default); a caller's sampled flag is followed. */
  sampleRatio: number;
  /**
   * TRACE_WEBHOOK_URLS: webhook attempt spans carry the whole endpoint URL (`url.full`). Off by
   * default: many receivers take a secret in the path or the query, so a span names the receiver by
   * scheme, host and port only.
   */
  webhookUrls: boolean;
}

export interface GraphQLWsLimits {
  /** Largest message a client may send, in bytes (GRAPHQL_WS_MAX_PAYLOAD_BYTES); a larger one closes the socket. */
  maxPayloadBytes: number;
  /** Open connections per authenticated principal (GRAPHQL_WS_MAX_CONNECTIONS_PER_PRINCIPAL). */
  connectionsPerPrincipal: number;
  /** Open connections per client address, anonymous or not (GRAPHQL_WS_MAX_CONNECTIONS_PER_ADDRESS). */
  connectionsPerAddress: number;
  /** Operations running at once on one connection, subscriptions included (GRAPHQL_WS_MAX_SUBSCRIPTIONS). */
  subscriptionsPerConnection: number;
}

export interface SignInBudgets {
  login: { perAddress: number; perAccount: number };
  register: { perAddress: number; perAccount: number };
}

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`${variable}: ${message}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

/** Minute-based schedule from the interface document: retries 2..8 after 1m, 5m, 30m, 2h, 8h, 24h, 24h cap. */
const DEFAULT_RETRY_DELAYS_MS = [60_000, 300_000, 1_800_000, 7_200_000, 28_800_000, 86_400_000];

function readInt(env: Env, name: string, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(name, `expected a whole number, got "${raw}"`);
  const value = Number(raw.trim());
  if (value < min || value > max) throw new ConfigError(name, `expected a number from ${min} to ${max}, got ${value}`);
  return value;
}

function readBool(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const v = raw.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(v)) return true;
  if (['0', 'false', 'no', 'off'].includes(v)) return false;
  throw new ConfigError(name, `expected true or false, got "${raw}"`);
}

function readDatabase(env: Env, dataDir: string): DatabaseTarget {
  const raw = env.DATABASE_URL?.trim();
  if (!raw) return { kind: 'pglite-file', dataDir: path.join(dataDir, 'pglite') };
  if (raw === 'memory:') return { kind: 'pglite-memory' };
  if (/^postgres(ql)?:\/\//.test(raw)) {
    try {
      new URL(raw);
    } catch {
      throw new ConfigError('DATABASE_URL', 'is not a valid postgres:// URL');
    }
    return { kind: 'postgres', url: raw };
  }
  throw new ConfigError(
    'DATABASE_URL',
    `expected unset (embedded database under DATA_DIR), "memory:" or a postgres://user:pass@host:port/db URL, got "${raw}"`,
  );
}

function readResolver(env: Env): Config['dnsResolver'] {
  const raw = env.DNS_RESOLVER?.trim();
  if (!raw) return null;
  // An IP literal and a port (a resolver cannot be found by name): 127.0.0.1:5353 or [::1]:53.
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([\d.]+)):(\d{1,5})$/.exec(raw);
  const host = match ? (match[1] ?? match[2]!) : '';
  const port = match ? Number(match[3]) : 0;
  if (!match || !net.isIP(host) || port < 1 || port > 65535) {
    throw new ConfigError('DNS_RESOLVER', `expected an IP address and port (e.g. 127.0.0.1:5353 or [::1]:53), got "${raw}"`);
  }
  return { host, port };
}

function readRetryDelays(env: Env): number[] {
  const raw = env.WEBHOOK_RETRY_DELAYS_MS;
  if (raw === undefined || raw.trim() === '') return DEFAULT_RETRY_DELAYS_MS;
  const parts = raw.split(',').map((p) => p.trim());
  if (parts.some((p) => !/^\d+$/.test(p))) {
    throw new ConfigError('WEBHOOK_RETRY_DELAYS_MS', `expected comma-separated milliseconds like "1000,5000", got "${raw}"`);
  }
  return parts.map(Number);
}

function readTrustProxy(env: Env): Config['trustProxy'] {
  const raw = env.TRUST_PROXY?.trim();
  if (!raw || ['false', 'no', 'off', '0'].includes(raw.toLowerCase())) return false;
  if (['true', 'yes', 'on'].includes(raw.toLowerCase())) return true;
  if (/^\d+$/.test(raw)) return Number(raw);
  const entries = raw.split(',').map((e) => e.trim());
  for (const entry of entries) {
    const [address, bits, ...rest] = entry.split('/');
    const family = net.isIP(address ?? '');
    const prefixOk = bits === undefined || (/^\d+$/.test(bits) && Number(bits) <= (family === 6 ? 128 : 32));
    if (!family || !prefixOk || rest.length) {
      throw new ConfigError(
        'TRUST_PROXY',
        `expected true, a hop count, or comma-separated proxy addresses and CIDR ranges (e.g. 10.0.0.1,10.1.0.0/16), got "${raw}"`,
      );
    }
  }
  return entries;
}

function readMetricsListener(env: Env): Config['metrics'] {
  const port = readInt(env, 'METRICS_PORT', 0, 0, 65535);
  if (!port) return null;
  const host = env.METRICS_HOST?.trim() || '127.0.0.1';
  if (!net.isIP(host) && host !== 'localhost') throw new ConfigError('METRICS_HOST', `expected an IP address, got "${host}"`);
  return { port, host };
}

function readHttpUrl(env: Env, name: string): URL | null {
  const raw = env[name]?.trim();
  if (!raw) return null;
  try {
    const url = new URL(raw);
    if (url.protocol === 'http:' || url.protocol === 'https:') return url;
  } catch {
    // Reported below.
  }
  throw new ConfigError(name, `expected an http(s) URL, got "${raw}"`);
}

/**
 * A comma-separated list of origins (`https://app.example.com`, a port if not the scheme's), each
 * written as the browser writes an origin, so it can go into a CSP `frame-ancestors` as it is.
 */
function readOrigins(env: Env, name: string): string[] {
  const raw = env[name]?.trim();
  if (!raw) return [];
  return raw.split(',').map((item) => {
    const value = item.trim();
    let origin: string | undefined;
    try {
      const url = new URL(value);
      if (url.protocol === 'http:' || url.protocol === 'https:') origin = url.origin;
    } catch {
      // Reported below.
    }
    if (!origin || origin !== value) throw new ConfigError(name, `expected origins such as https://app.example.com, got "${value}"`);
    return origin;
  });
}

/** The standard OpenTelemetry variables; tracing is on only when an endpoint is set. */
function readTracing(env: Env): TracingConfig | null {
  // Read even when tracing is off, so that a mistyped value is refused at once, not when tracing is turned on.
  const webhookUrls = readBool(env, 'TRACE_WEBHOOK_URLS', false);
  const traces = readHttpUrl(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  const base = readHttpUrl(env, 'OTEL_EXPORTER_OTLP_ENDPOINT');
  if (!traces && !base) return null;
  // The base endpoint takes the signal's path, as the OTLP exporter specification says.
  const url = traces ? traces.href : `${base!.href.replace(/\/+$/, '')}/v1/traces`;
  const serviceName = env.OTEL_SERVICE_NAME?.trim() || 'schemaforge';
  const ratioRaw = env.OTEL_TRACES_SAMPLER_ARG?.trim();
  let sampleRatio = 1;
  if (ratioRaw) {
    sampleRatio = Number(ratioRaw);
    if (!/^(\d+(\.\d*)?|\.\d+)$/.test(ratioRaw) || sampleRatio > 1) {
      throw new ConfigError('OTEL_TRACES_SAMPLER_ARG', `expected a ratio from 0 to 1, got "${ratioRaw}"`);
    }
  }
  return { url, serviceName, sampleRatio, webhookUrls };
}

function readSecret(env: Env, name: string): string | null {
  const value = env[name]?.trim() || null;
  if (value !== null && value.length < 32) throw new ConfigError(name, 'must be at least 32 characters long');
  return value;
}

/**
 * `defaultNodeEnv`: what an unset NODE_ENV means. The server's entry points (`npm start`, `npm run
 * worker`) pass `production`, so a deployment that sets nothing runs as one; `npm run dev` sets
 * development; the operator commands keep development.
 */
export function loadConfig(
  env: Env = process.env,
  { defaultNodeEnv = 'development' }: { defaultNodeEnv?: Config['nodeEnv'] } = {},
): Config {
  const nodeEnvRaw = env.NODE_ENV?.trim() || defaultNodeEnv;
  if (!['development', 'production', 'test'].includes(nodeEnvRaw)) {
    throw new ConfigError('NODE_ENV', `expected development, production or test, got "${nodeEnvRaw}"`);
  }
  const nodeEnv = nodeEnvRaw as Config['nodeEnv'];
  const production = nodeEnv === 'production';
  const port = readInt(env, 'PORT', 3000, 0, 65535);
  const host = env.HOST?.trim() || '0.0.0.0';
  const baseUrl = (env.BASE_URL?.trim() || `http://localhost:${port}`).replace(/\/+$/, '');
  try {
    const u = new URL(baseUrl);
    if (!['http:', 'https:'].includes(u.protocol)) throw new Error('protocol');
  } catch {
    throw new ConfigError('BASE_URL', `expected an http(s) URL, got "${baseUrl}"`);
  }
  const dataDir = path.resolve(env.DATA_DIR?.trim() || '.data');
  const database = readDatabase(env, dataDir);
  const authJwtSecret = readSecret(env, 'AUTH_JWT_SECRET');
  const secretsKey = readSecret(env, 'SECRETS_KEY');
  // With the embedded database the server is one node, and secrets generated under DATA_DIR sit
  // beside the data they protect. Every instance of a PostgreSQL deployment must share them.
  if (production && database.kind === 'postgres') {
    if (authJwtSecret === null) throw new ConfigError('AUTH_JWT_SECRET', 'is required when NODE_ENV=production with DATABASE_URL');
    if (secretsKey === null) throw new ConfigError('SECRETS_KEY', 'is required when NODE_ENV=production with DATABASE_URL');
  }
  const allowInsecureIdp = readBool(env, 'ALLOW_INSECURE_IDP', false);
  if (production && allowInsecureIdp) throw new ConfigError('ALLOW_INSECURE_IDP', 'cannot be true when NODE_ENV=production');
  const degraded = readInt(env, 'WEBHOOK_DEGRADED_AFTER', 50, 1);
  const disabled = readInt(env, 'WEBHOOK_DISABLED_AFTER', 500, 1);
  if (disabled <= degraded) {
    throw new ConfigError('WEBHOOK_DISABLED_AFTER', `must be greater than WEBHOOK_DEGRADED_AFTER (${degraded})`);
  }
  const logLevel = env.LOG_LEVEL?.trim() || 'info';
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(logLevel)) {
    throw new ConfigError('LOG_LEVEL', `expected one of fatal, error, warn, info, debug, trace, silent, got "${logLevel}"`);
  }
  const logFormat = env.LOG_FORMAT?.trim() || (nodeEnv === 'development' ? 'pretty' : 'json');
  if (logFormat !== 'pretty' && logFormat !== 'json') throw new ConfigError('LOG_FORMAT', `expected pretty or json, got "${logFormat}"`);
  return {
    nodeEnv,
    port,
    host,
    baseUrl,
    dataDir,
    database,
    authJwtSecret,
    // From one minute to 30 days; 8 hours, a working day, by default.
    authSessionTtlS: readInt(env, 'AUTH_SESSION_TTL_S', 8 * 3600, 60, 30 * 86_400),
    secretsKey,
    allowInsecureIdp,
    samlMetadataRefreshS: readInt(env, 'SAML_METADATA_REFRESH_S', 12 * 3600, 6 * 3600, 24 * 3600),
    graphiql: readBool(env, 'GRAPHIQL', !production),
    portalFrameAncestors: readOrigins(env, 'PORTAL_FRAME_ANCESTORS'),
    docs: readBool(env, 'DOCS', !production),
    graphqlSchemaPrintout: readBool(env, 'GRAPHQL_SCHEMA_PRINTOUT', !production),
    graphqlTrustedDocuments: readBool(env, 'GRAPHQL_TRUSTED_DOCUMENTS', false),
    graphqlPlanner: readBool(env, 'GRAPHQL_PLANNER', true),
    graphqlWsInitTimeoutMs: readInt(env, 'GRAPHQL_WS_INIT_TIMEOUT_MS', 60_000, 1),
    graphqlWsKeepAliveMs: readInt(env, 'GRAPHQL_WS_KEEPALIVE_MS', 30_000, 1),
    graphqlWsLimits: {
      // 64 KiB holds any query (16 384 characters at most) with ordinary variables; a post of 50 000
      // characters outside ASCII can exceed it: such mutations belong on HTTP, or raise this.
      maxPayloadBytes: readInt(env, 'GRAPHQL_WS_MAX_PAYLOAD_BYTES', 64 * 1024, 1024, 16 * 1024 * 1024),
      connectionsPerPrincipal: readInt(env, 'GRAPHQL_WS_MAX_CONNECTIONS_PER_PRINCIPAL', 20, 1, 100_000),
      connectionsPerAddress: readInt(env, 'GRAPHQL_WS_MAX_CONNECTIONS_PER_ADDRESS', 50, 1, 100_000),
      subscriptionsPerConnection: readInt(env, 'GRAPHQL_WS_MAX_SUBSCRIPTIONS', 20, 1, 10_000),
    },
    graphqlMaxDepth: readInt(env, 'GRAPHQL_MAX_DEPTH', DEFAULT_MAX_DEPTH, 1, 100),
    graphqlMaxComplexity: readInt(env, 'GRAPHQL_MAX_COMPLEXITY', DEFAULT_MAX_COMPLEXITY, 1),
    webhookRetryDelaysMs: readRetryDelays(env),
    webhookTimeoutMs: readInt(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 1),
    webhookDegradedAfter: degraded,
    webhookDisabledAfter: disabled,
    webhookConcurrency: readInt(env, 'WEBHOOK_CONCURRENCY', 50, 1, 1000),
    webhookFlushMs: readInt(env, 'WEBHOOK_FLUSH_MS', 20, 1, 60_000),
    webhookRatePerEndpoint: readInt(env, 'WEBHOOK_RATE_PER_ENDPOINT', 100, 1),
    webhookAllowPrivateTargets: readBool(env, 'WEBHOOK_ALLOW_PRIVATE_TARGETS', false),
    webhookWorker: readBool(env, 'WEBHOOK_WORKER', true),
    // A day by default: long enough for a consumer to deploy the new secret.
    webhookSecretOverlapS: readInt(env, 'WEBHOOK_SECRET_OVERLAP_S', 86_400, 0, 30 * 86_400),
    dnsResolver: readResolver(env),
    httpRequestTimeoutMs: readInt(env, 'HTTP_REQUEST_TIMEOUT_MS', 120_000, 100),
    logLevel,
    logFormat,
    signInBudgets: {
      login: {
        perAddress: readInt(env, 'SIGN_IN_ATTEMPTS_PER_ADDRESS', 30, 1, 1_000_000),
        perAccount: readInt(env, 'SIGN_IN_ATTEMPTS_PER_ACCOUNT', 10, 1, 1_000_000),
      },
      register: {
        perAddress: readInt(env, 'REGISTRATIONS_PER_ADDRESS', 10, 1, 1_000_000),
        perAccount: readInt(env, 'REGISTRATIONS_PER_ACCOUNT', 5, 1, 1_000_000),
      },
    },
    createUserPerAddress: readInt(env, 'CREATE_USER_PER_ADDRESS', 10, 1, 1_000_000),
    // 100 MB: ten uploads of the largest size accepted (10,000,000 bytes).
    filesQuotaBytes: readInt(env, 'FILES_QUOTA_BYTES', 100_000_000, 1),
    trustProxy: readTrustProxy(env),
    metricsToken: readSecret(env, 'METRICS_TOKEN'),
    metrics: readMetricsListener(env),
    tracing: readTracing(env),
  };
}
