/**
 * One server under test, in its own process: `node --import tsx scripts/bench/serve.ts <kind> <data>`
 * listening on PORT. Our application on a database is not started here but from dist/src/main.js
 * (as `npm start` runs it); this file serves the peers, and ours where the stack's own cost is
 * measured (in-memory resolvers, stubbed repository), wired as src/main.ts wires it (ours.ts).
 *
 * kind: ours-memory | ours-stub | ours-db | ours-db-memory-credentials | mercurius | yoga-jit | yoga-defaults | fastify-bare
 * data: memory | stub | pglite:<dir> | postgres:<url>
 *
 * ours-db is our application on the database as the wiring of src/server.ts builds it; with
 * `-memory-credentials` its credential store answers from memory what the database held at start
 * (scripts/bench/auth.ts measures the per-request credential look-up with the pair).
 */
import type { IncomingMessage, RequestListener } from 'node:http';
import { createServer } from 'node:http';
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { createRequire } from 'node:module';
import Fastify from 'fastify';
import type { GraphQLSchema } from 'graphql';
import mercurius from 'mercurius';
import { createAuthenticator } from '../../src/auth/authenticate.ts';
import { CachedCredentialStore } from '../../src/auth/credential-cache.ts';
import { CredentialVerifier } from '../../src/auth/credentials.ts';
import { bearerAuthentication } from '../../src/auth/bearer-hook.ts';
import { loadConfig } from '../../src/config.ts';
import { findProductById, pageProducts } from '../../src/catalog/products.repository.ts';
import { toPagedProductResponse, toProductResponse } from '../../src/catalog/products.v1.representation.ts';
import { openDatabase, type DatabaseHandle } from '../../src/db/database.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { createContentContext, type ContentContext } from '../../src/content/content.context.ts';
import { OperationExecutor } from '../../src/graphql/execute.ts';
import { graphqlLimits } from '../../src/graphql/limits.ts';
import { registerGraphQLHttp } from '../../src/graphql/http.ts';
import { OperationPreparer } from '../../src/graphql/operation.ts';
import { buildContentSchema } from '../../src/content/content.graph.ts';
import { createServices } from '../../src/services.ts';
import { JWT_SECRET, MEMORY_GRAPHQL_PATH, memorySchema } from './fixtures.ts';
import { memoryCredentialStore } from './memory-credentials.ts';
import { buildOurs } from './ours.ts';
import { stubDatabase } from './stub-database.ts';

const require = createRequire(import.meta.url);
/**
 * graphql-yoga and its jit plugin loaded without their types: those reference the DOM lib (through
 * @whatwg-node/fetch), which would retype Node's Blob and FormData for the whole program.
 */
interface YogaOptions {
  schema: GraphQLSchema;
  context: (serverContext: { req: IncomingMessage }) => Promise<ContentContext>;
  graphqlEndpoint: string;
  plugins?: unknown[];
  landingPage?: boolean;
  graphiql?: boolean;
  cors?: boolean;
  maskedErrors?: boolean;
  logging?: boolean;
}
const { createYoga } = require('graphql-yoga') as { createYoga(options: YogaOptions): RequestListener };
const { useGraphQlJit } = require('@envelop/graphql-jit') as { useGraphQlJit(): unknown };

const [kind, data] = process.argv.slice(2);
const port = Number(process.env.PORT);
const host = process.env.HOST ?? '127.0.0.1';

const ours = kind === 'ours-memory' || kind === 'ours-stub';

/**
 * The database handle, or null for a peer on in-memory resolvers or the stub (it needs none). Ours
 * on those opens in-memory PGlite for what src/main.ts opens at start (the event listener), the
 * stub replacing the query executor its services use.
 */
async function open(): Promise<DatabaseHandle | null> {
  if (data === 'memory' || data === 'stub') {
    if (!ours) return null;
    const handle = await openDatabase({ kind: 'pglite-memory' });
    await migrateToLatest(handle.db);
    return data === 'stub' ? { ...handle, db: stubDatabase() } : handle;
  }
  if (data?.startsWith('pglite:')) return openDatabase({ kind: 'pglite-file', dataDir: data.slice('pglite:'.length) });
  if (data?.startsWith('postgres:')) return openDatabase({ kind: 'postgres', url: data.slice('postgres:'.length) });
  throw new Error(`unknown data ${data}`);
}

const database = await open();
/**
 * The database of the peers' repository calls and of the credential check every target shares: on
 * in-memory resolvers and the stubbed repository, the stub for all of them (ours included), so no
 * target pays for a credential query the others do not.
 */
const db = data === 'memory' || data === 'stub' || !database ? stubDatabase() : database.db;
// The peers are DataLoader servers (issue 33: "three times the best DataLoader server"): they run
// our resolvers and loaders, without the look-ahead planner, which is ours (src/content/planner/).
const services = createServices(
  db,
  { ...loadConfig(), graphqlPlanner: false },
  { secretsKey: JWT_SECRET, mail: { send: async () => undefined } },
);
const authenticate = createAuthenticator(new CredentialVerifier(JWT_SECRET, new CachedCredentialStore(services.sessions)), {
  allowedOrigin: 'http://127.0.0.1',
});
/** Every GraphQL peer resolves the caller as ours does (the same passport strategy) and builds our context. */
const contextOf = async (req: IncomingMessage) => createContentContext(await authenticate(req), services);
const schema = data === 'memory' ? memorySchema() : buildContentSchema();

async function listenHttp(listener: RequestListener): Promise<void> {
  const server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
}

switch (kind) {
  case 'ours-memory':
  case 'ours-stub': {
    // On the configuration the environment gives (NODE_ENV=production, LOG_LEVEL=info, stdout to /dev/null).
    const { http, config, services: appServices } = await buildOurs(database!);
    if (kind === 'ours-memory') {
      // In a scope with the bearer hook, as the GraphQL plugin registers /graphql: a route at the
      // root would see no caller.
      await http.register(async (scope) => {
        scope.addHook('onRequest', bearerAuthentication(authenticate));
        registerGraphQLHttp(scope, {
          schema,
          preparer: new OperationPreparer(schema, graphqlLimits(config)),
          executor: new OperationExecutor(schema),
          context: (principal) => createContentContext(principal, appServices),
          url: MEMORY_GRAPHQL_PATH,
        });
      });
    }
    await http.listen({ port, host });
    break;
  }
  case 'ours-db':
  case 'ours-db-memory-credentials': {
    const { http } = await buildOurs(database!, kind === 'ours-db' ? undefined : await memoryCredentialStore(database!.db));
    await http.listen({ port, host });
    break;
  }
  case 'mercurius': {
    const app = Fastify({ logger: false });
    await app.register(mercurius, { schema, jit: 1, context: (request) => contextOf(request.raw) });
    await app.listen({ port, host });
    break;
  }
  case 'yoga-jit':
    // What a speed-minded user configures: compiled execution, no landing page, GraphiQL, CORS,
    // error masking or logging.
    await listenHttp(
      createYoga({
        schema,
        context: ({ req }) => contextOf(req),
        graphqlEndpoint: '/graphql',
        plugins: [useGraphQlJit()],
        landingPage: false,
        graphiql: false,
        cors: false,
        maskedErrors: false,
        logging: false,
      }),
    );
    break;
  case 'yoga-defaults':
    await listenHttp(createYoga({ schema, context: ({ req }) => contextOf(req), graphqlEndpoint: '/graphql' }));
    break;
  case 'fastify-bare': {
    // The same repository calls and representation functions as our handlers, serialised from the
    // OpenAPI document's response schemas; no validation, negotiation or logging; the credential
    // check where a request carries a credential.
    const document = require('../../generated/openapi/rest-v1.json') as { components: Record<string, unknown> };
    const app = Fastify({ logger: false });
    // The same credential check as ours where a request carries one (the bearer-token row).
    app.addHook('onRequest', bearerAuthentication(authenticate));
    app.addSchema({ $id: 'rest-v1', components: document.components });
    app.get<{ Params: { id: string } }>(
      '/api/v1/products/:id',
      { schema: { response: { 200: { $ref: 'rest-v1#/components/schemas/ProductResponse' } } } },
      async (request, reply) => {
        const row = await findProductById(db, request.params.id);
        if (!row) return reply.code(404).send();
        return toProductResponse(row);
      },
    );
    app.get<{ Querystring: { page?: string; size?: string } }>(
      '/api/v1/products',
      { schema: { response: { 200: { $ref: 'rest-v1#/components/schemas/PagedProductResponse' } } } },
      async (request) => {
        const page = Number(request.query.page ?? 0);
        const size = Number(request.query.size ?? 20);
        const { rows, total } = await pageProducts(db, { orders: [{ field: 'createdAt', direction: 'desc' }], page, size });
        return toPagedProductResponse({ items: rows, totalElements: total }, page, size);
      },
    );
    await app.listen({ port, host });
    break;
  }
  default:
    throw new Error(`unknown server kind ${kind}`);
}

// CPU profiles on request (scripts/bench/cpu-profile.ts): each SIGUSR2 starts or stops V8's sampling
// profiler, so only the measured stretches are in them (no start-up, no warm-up), and the end writes
// the profiles taken to BENCH_CPU_PROFILE as a JSON array.
const profiling = process.env.BENCH_CPU_PROFILE ? await startProfiler(process.env.BENCH_CPU_PROFILE) : null;

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    void (profiling?.write() ?? Promise.resolve()).then(() => database?.close()).finally(() => process.exit(0));
  });
}

async function startProfiler(file: string): Promise<{ write(): Promise<void> }> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 100 });
  const profiles: unknown[] = [];
  let running: Promise<unknown> | null = null;
  process.on('SIGUSR2', () => {
    if (running) {
      const started = running;
      running = null;
      void started.then(() => session.post('Profiler.stop')).then(({ profile }) => profiles.push(profile));
    } else running = session.post('Profiler.start');
  });
  return {
    async write() {
      writeFileSync(file, JSON.stringify(profiles));
    },
  };
}
