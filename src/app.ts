/**
 * The application: the root HTTP server (src/http/http-server.ts) with every area registered as its
 * own plugin, each owning its routes, authentication and error handling (docs/architecture.md). It
 * never listens (src/main.ts does, through src/server.ts), so tests build it and listen on port 0.
 */
import type { FastifyInstance } from 'fastify';
import { createAuthenticator } from './auth/authenticate.ts';
import { CachedCredentialStore } from './auth/credential-cache.ts';
import { CredentialVerifier, type CredentialStore } from './auth/credentials.ts';
import { catalogPlugin } from './catalog/catalog.plugin.ts';
import type { Config } from './config.ts';
import { contentGraph } from './content/content.graph.ts';
import { postsPlugin } from './content/posts.plugin.ts';
import type { DatabaseHandle } from './db/database.ts';
import { filesPlugin } from './files/files.plugin.ts';
import { graphqlPlugin } from './graphql/graphql.plugin.ts';
import { createHttpServer } from './http/http-server.ts';
import { LogMailTransport, type MailTransport } from './identity/domains/mail-transport.ts';
import { SCIM_PREFIX, scimPlugin } from './identity/scim/scim.plugin.ts';
import { signInPlugin } from './identity/sign-in/sign-in.plugin.ts';
import { tenantsPlugin } from './identity/tenants/tenants.plugin.ts';
import { createPortalAuthenticator } from './portal/portal-credential.ts';
import { registerPortalPage } from './portal/portal-page.ts';
import { portalPlugin } from './portal/portal.plugin.ts';
import { requireEveryOperationServed } from './http/operation-coverage.ts';
import { registerDocsPage } from './ops/docs-page.ts';
import { opsPlugin } from './ops/ops.plugin.ts';
import { createMetrics, type AppMetrics } from './ops/metrics.ts';
import { graphqlSpans } from './ops/tracing/graphql-spans.ts';
import { traceHttpRequests } from './ops/tracing/http-spans.ts';
import type { Tracing } from './ops/tracing/tracing.ts';
import { ordersPlugin } from './orders/orders.plugin.ts';
import { createServices, servicesFor, type Services } from './services.ts';
import { webhooksPlugin } from './webhooks/webhooks.plugin.ts';

export interface AppDependencies {
  config: Config;
  database: DatabaseHandle;
  /** Key of the signed list cursors (see src/http/cursor.ts: derived from the JWT secret). */
  cursorSecret: Uint8Array;
  /** Verifies bearer JWTs (sessions are checked against the database, src/auth/credentials.ts). */
  jwtSecret: string;
  /**
   * What bearer credentials are checked against; unless given, the sessions service (the database)
   * with its answers kept while the credential epoch stands (src/auth/credential-cache.ts).
   * The benchmarks give one answering from memory to measure what the per-request look-up costs.
   */
  credentialStore?: CredentialStore;
  /** The key stored identity provider secrets are sealed with (SECRETS_KEY, or generated under DATA_DIR). */
  secretsKey: string;
  /** How domain verification codes are mailed; to the log by default. */
  mail?: MailTransport;
  /** Spans for requests and GraphQL operations (src/ops/tracing/); none when null or absent. */
  tracing?: Tracing | null;
}

export interface App {
  http: FastifyInstance;
  services: Services;
  /** Served at /metrics; the in-process webhook worker reports to `metrics.webhooks`. */
  metrics: AppMetrics;
}

export async function buildApp({
  config,
  database,
  cursorSecret,
  jwtSecret,
  credentialStore,
  secretsKey,
  mail,
  tracing,
}: AppDependencies): Promise<App> {
  const http = createHttpServer(config);
  database.onConnectionError((error) => http.log.warn({ err: error }, 'database connection lost; the pool opens a new one'));
  const services = createServices(database.db, config, { secretsKey, mail: mail ?? new LogMailTransport(http.log), log: http.log });
  // One verifier for every transport: REST and GraphQL over HTTP through the strategies, WebSockets directly.
  const verifier = new CredentialVerifier(jwtSecret, credentialStore ?? new CachedCredentialStore(services.sessions));
  const authenticate = createAuthenticator(verifier, { allowedOrigin: new URL(config.baseUrl).origin });
  // The portal session: accepted only where an operation's x-portal-intent says (openapi-routes.ts).
  const authenticatePortal = createPortalAuthenticator(services.portal, new URL(config.baseUrl).origin);
  requireEveryOperationServed(http);
  const metrics = createMetrics(database);
  // Before every other hook but the request id's and the Host check (src/http/http-server.ts).
  if (tracing) traceHttpRequests(http, tracing);
  // On the root instance before any area registers, so it sees every route's responses.
  http.addHook('onResponse', (request, reply, done) => {
    metrics.request(request.method, request.routeOptions.url ?? 'unmatched', reply.statusCode, reply.elapsedTime / 1000);
    done();
  });

  await http.register(opsPlugin, { db: database.db, baseUrl: config.baseUrl, metrics, metricsToken: config.metricsToken });
  if (config.docs) registerDocsPage(http, { graphiql: config.graphiql, schema: config.graphqlSchemaPrintout });
  // Each area gets the services it uses, not the container.
  const only = <K extends keyof Services>(...names: K[]) => servicesFor(services, ...names);
  await http.register(catalogPlugin, { services: only('products'), authenticate });
  await http.register(ordersPlugin, { services: only('customers', 'orders'), authenticate });
  await http.register(filesPlugin, { services: only('files', 'configDocument'), authenticate });
  await http.register(postsPlugin, { services: only('postLists'), authenticate, cursorSecret });
  const tenants = only('tenants', 'scimTokens', 'scimActivity', 'identityProviders', 'domains', 'saml', 'samlSpKeys', 'oidc', 'portal');
  await http.register(tenantsPlugin, { services: tenants, authenticate, authenticatePortal, baseUrl: config.baseUrl });
  // A sibling of the tenants plugin: its own SCIM-token hook, error and not-found handlers under its prefix.
  const scim = only('scimTokens', 'scimUsers', 'scimGroups', 'scimActivity');
  await http.register(scimPlugin, { prefix: SCIM_PREFIX, services: scim, baseUrl: config.baseUrl });
  const signIn = only('accounts', 'identityProviders', 'sessions', 'saml', 'oidc');
  await http.register(signInPlugin, { services: signIn, authenticate, baseUrl: config.baseUrl, db: database.db });
  await http.register(webhooksPlugin, { services: only('webhookEndpoints'), authenticate, authenticatePortal, cursorSecret });
  await http.register(portalPlugin, { services: only('portal'), authenticatePortal, baseUrl: config.baseUrl });
  registerPortalPage(http, { frameAncestors: config.portalFrameAncestors });
  const graph = contentGraph(only('users', 'posts', 'comments', 'contentLoaders', 'planner'));
  const aroundOperation = tracing ? { aroundOperation: graphqlSpans(tracing) } : {};
  await http.register(graphqlPlugin, { config, database, graph, authenticate, verifier, ...aroundOperation });

  return { http, services, metrics };
}
