/**
 * The `users → posts → author` query through our stack, graphql-yoga and Mercurius (jit on), all
 * serving the same executable schema (our SDL, directives and resolvers, built by
 * buildGraphQLSchema) over the same Services and database handle, in one run:
 * - ours: the full application (buildApp: request ids, the auth hook, graphql-http, the document
 *   cache, graphql-jit, error mapping) on POST /graphql;
 * - Yoga: createYoga({ schema, context }) on a node:http server;
 * - Mercurius: registered with `jit: 1` on a bare Fastify.
 * Every server builds each request's context the same way (our GraphQLContext: anonymous principal,
 * the services, fresh DataLoaders).
 *
 * Then the same three over an in-memory resolver map for the same SDL subset (Query.users →
 * User.posts → Post.author, also built with our SDL and directives), so execution cost shows apart
 * from the database. Ours serves it through the same full application, on a second route registered
 * with our HTTP transport (registerGraphQLHttp) and its own document cache and executor.
 *
 * autocannon drives each server on loopback with the same connections and duration, one after the
 * other, from one worker thread (_load.ts: the load generator does not share the servers' event loop).
 * Target: ours ≥ 1.0× Yoga and ≥ 1.0× Mercurius+jit in both variants.
 *
 * Database: in-memory PGlite, or the PostgreSQL server named by DATABASE_URL.
 */
import { listen, startBenchApp } from './_app.ts';
import { LoadGenerator, type Measurement } from './_load.ts';
import { createServer, type RequestListener, type Server } from 'node:http';
import { createRequire } from 'node:module';
import { isDeepStrictEqual } from 'node:util';
import Fastify, { type FastifyInstance } from 'fastify';
import type { GraphQLSchema } from 'graphql';
import { parse } from 'graphql';
import mercurius from 'mercurius';
import type { DatabaseHandle } from '../../src/db/database.ts';
import { createContext, type GraphQLContext } from '../../src/graphql/context.ts';
import { OperationExecutor } from '../../src/graphql/execute.ts';
import { graphqlLimits } from '../../src/graphql/limits.ts';
import { registerGraphQLHttp } from '../../src/graphql/http.ts';
import { operationComplexity } from '../../src/graphql/limits.ts';
import { OperationPreparer } from '../../src/graphql/operation.ts';
import { buildGraphQLSchema, buildGraphQLSchemaWith } from '../../src/graphql/schema.ts';

/**
 * graphql-yoga loaded without its types: they reference the DOM lib (through @whatwg-node/fetch),
 * which would retype Node's Blob and FormData for the whole program. This is all the bench uses.
 */
const { createYoga } = createRequire(import.meta.url)('graphql-yoga') as {
  createYoga(options: {
    schema: GraphQLSchema;
    context: () => GraphQLContext;
    logging: boolean;
    graphqlEndpoint: string;
    landingPage: boolean;
  }): RequestListener;
};

const USERS = 20;
const POSTS_PER_USER = 10;
/**
 * The shape. With users(size: 20) and posts(size: 10) it would cost 1 281 under our cost
 * model (limit 200), so the sizes are 5 and 5: 1 + 5 × (1 + 1 + 1 + (1 + 5 × (1 + 1 + 1 + 3))) = 171.
 * 5 users, 25 posts and their authors per response.
 */
const QUERY = '{ users(size: 5) { content { id username posts(size: 5) { content { id title author { id username } } } } } }';
const CONNECTIONS = 10;
const WARMUP_SECONDS = 3;
/** Per server and variant: ROUNDS measurements of SECONDS each, interleaved (see compare). */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 40);
const SECONDS = 1;
const MEMORY_PATH = '/bench/graphql-memory';

interface Target {
  name: string;
  url: string;
}

const load = new LoadGenerator();

function measure(url: string, duration: number): Promise<Measurement> {
  return load.measure({
    url,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: QUERY }),
    connections: CONNECTIONS,
    duration,
  });
}

async function post(url: string): Promise<unknown> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: QUERY }),
  });
  const body = (await response.json()) as { errors?: unknown };
  if (response.status !== 200 || body.errors) throw new Error(`${url}: ${response.status} ${JSON.stringify(body)}`);
  return body;
}

// ---------------------------------------------------------------------------------------------
// In-memory resolvers for Query.users → User.posts → Post.author, shaped like the database rows.

interface MemoryUser {
  id: string;
  username: string;
}

interface MemoryPost {
  id: number;
  title: string;
  author_id: string;
}

interface PageArgs {
  page?: number | null;
  size?: number | null;
}

function connection<T>(items: readonly T[], page: number, size: number) {
  const start = page * size;
  return {
    content: items.slice(start, start + size),
    totalElements: items.length,
    totalPages: Math.ceil(items.length / size),
    hasNext: start + size < items.length,
  };
}

function memorySchema(): GraphQLSchema {
  const users: MemoryUser[] = Array.from({ length: USERS }, (_, i) => ({ id: `user-${i}`, username: `user${i}` }));
  const usersById = new Map(users.map((u) => [u.id, u]));
  const postsByAuthor = new Map(
    users.map((u, i) => [
      u.id,
      Array.from({ length: POSTS_PER_USER }, (_, j): MemoryPost => ({
        id: i * POSTS_PER_USER + j + 1,
        title: `Post ${j} of ${u.username}`,
        author_id: u.id,
      })),
    ]),
  );
  return buildGraphQLSchemaWith({
    Query: { users: (_: unknown, { page, size }: PageArgs) => connection(users, page ?? 0, size ?? 20) },
    User: { posts: (user: MemoryUser, { page, size }: PageArgs) => connection(postsByAuthor.get(user.id) ?? [], page ?? 0, size ?? 10) },
    Post: { author: (post: MemoryPost) => usersById.get(post.author_id) },
  });
}

// ---------------------------------------------------------------------------------------------
// Baselines.

async function yogaServer(schema: GraphQLSchema, context: () => GraphQLContext): Promise<{ server: Server; url: string }> {
  const yoga = createYoga({ schema, context, logging: false, graphqlEndpoint: '/graphql', landingPage: false });
  const server = createServer(yoga);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { server, url: `http://127.0.0.1:${port}/graphql` };
}

async function mercuriusServer(schema: GraphQLSchema, context: () => GraphQLContext): Promise<{ app: FastifyInstance; url: string }> {
  const app = Fastify({ logger: false });
  await app.register(mercurius, { schema, jit: 1, context });
  return { app, url: `${await listen(app)}/graphql` };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** ours/baseline of each round: the two measured a few seconds apart, under the same conditions. */
function pairedRatios(ours: Measurement[], baseline: Measurement[]): number[] {
  return ours.map((m, round) => m.rps / baseline[round]!.rps);
}

function ratioCell(ratios: number[]): string {
  const sorted = [...ratios].sort((a, b) => a - b);
  return `${median(ratios).toFixed(2)}× (${sorted[0]!.toFixed(2)}–${sorted.at(-1)!.toFixed(2)})`;
}

/**
 * Checks that the three servers answer the same, warms each up, then measures them in ROUNDS
 * rounds, rotating which server goes first. The machines we run on (2 shared vCPUs) change speed by
 * tens of percent from one few-second spell to the next (the server thread stays ~98 % busy while
 * its throughput swings), so the rounds are short (1 s per server), each ratio is taken within a
 * round (the servers measured back to back, under nearly the same conditions) and the reported
 * ratio is the median of those per-round ratios; req/s and p99 are each server's median round.
 */
async function compare(variant: string, targets: Target[], database: DatabaseHandle): Promise<string> {
  // One request each, alone: the same body and the same SQL statements from every server. (After a
  // pause, so that no request of an earlier load is still running its statements.)
  await new Promise((resolve) => setTimeout(resolve, 500));
  const answers: { body: unknown; statements: string[] }[] = [];
  for (const t of targets) {
    const statements: string[] = [];
    const stop = database.observeQueries((sql) => statements.push(sql));
    answers.push({ body: await post(t.url), statements });
    stop();
  }
  for (let i = 1; i < answers.length; i++) {
    if (!isDeepStrictEqual(answers[i], answers[0]))
      throw new Error(`${variant}: ${targets[i]!.name} answers or queries differently from ${targets[0]!.name}`);
  }
  console.error(`  ${variant}: ${answers[0]!.statements.length} SQL statements per request on every server`);
  for (const t of targets) await measure(t.url, WARMUP_SECONDS);
  const rounds = targets.map((): Measurement[] => []);
  for (let round = 0; round < ROUNDS; round++) {
    for (let k = 0; k < targets.length; k++) {
      const i = (round + k) % targets.length;
      rounds[i]!.push(await measure(targets[i]!.url, SECONDS));
    }
  }
  const [ours, yoga, merc] = rounds.map((r) => ({ rps: median(r.map((m) => m.rps)), p99: median(r.map((m) => m.p99)) }));
  const vsYoga = pairedRatios(rounds[0]!, rounds[1]!);
  const vsMerc = pairedRatios(rounds[0]!, rounds[2]!);
  targets.forEach((t, i) => console.error(`  ${variant} · ${t.name}: ${rounds[i]!.map((m) => m.rps.toFixed(0)).join(', ')} req/s`));
  console.error(`  ${variant} · ours/Mercurius+jit by round: ${vsMerc.map((r) => r.toFixed(2)).join(', ')}`);
  const cells = [ours!, yoga!, merc!].flatMap((m) => [m.rps.toFixed(0), m.p99.toFixed(0)]);
  return `| ${variant} | ${cells.join(' | ')} | ${ratioCell(vsYoga)} | ${ratioCell(vsMerc)} |`;
}

async function seed(database: DatabaseHandle): Promise<void> {
  const users = await database.db
    .insertInto('users')
    .values(Array.from({ length: USERS }, (_, i) => ({ username: `user${i}`, email: `user${i}@example.test`, display_name: `User ${i}` })))
    .returning('id')
    .execute();
  await database.db
    .insertInto('posts')
    .values(
      users.flatMap((u, i) =>
        Array.from({ length: POSTS_PER_USER }, (_, j) => ({
          author_id: u.id,
          title: `Post ${j} of user${i}`,
          content: 'Body',
          slug: `bench-${i}-${j}`,
          status: 'PUBLISHED',
        })),
      ),
    )
    .execute();
}

export async function run(): Promise<string> {
  const { http, services, config, database } = await startBenchApp({ graphiql: false, graphqlSchemaPrintout: false });
  const limits = graphqlLimits(config);
  const cost = operationComplexity(buildGraphQLSchema(), parse(QUERY), {}, null);
  if (cost === null || cost > limits.maxComplexity)
    throw new Error(`the benchmark query costs ${cost}, over the limit of ${limits.maxComplexity}`);

  const context = () => createContext(null, services);

  // Our stack over the in-memory resolvers: the same application, our transport on a second route.
  const memory = memorySchema();
  registerGraphQLHttp(http, {
    schema: memory,
    preparer: new OperationPreparer(memory, limits),
    executor: new OperationExecutor(memory),
    context: (principal) => createContext(principal, services),
    url: MEMORY_PATH,
  });

  const databaseSchema = buildGraphQLSchema();
  const closers: (() => Promise<unknown>)[] = [() => http.close()];
  try {
    await seed(database);
    const ours = await listen(http);
    const yogaDb = await yogaServer(databaseSchema, context);
    closers.push(() => new Promise((resolve) => yogaDb.server.close(resolve)));
    const yogaMemory = await yogaServer(memory, context);
    closers.push(() => new Promise((resolve) => yogaMemory.server.close(resolve)));
    const mercDb = await mercuriusServer(databaseSchema, context);
    closers.push(() => mercDb.app.close());
    const mercMemory = await mercuriusServer(memory, context);
    closers.push(() => mercMemory.app.close());

    const rows = [
      await compare(
        'database',
        [
          { name: 'ours', url: `${ours}/graphql` },
          { name: 'Yoga', url: yogaDb.url },
          { name: 'Mercurius+jit', url: mercDb.url },
        ],
        database,
      ),
      await compare(
        'in-memory',
        [
          { name: 'ours', url: `${ours}${MEMORY_PATH}` },
          { name: 'Yoga', url: yogaMemory.url },
          { name: 'Mercurius+jit', url: mercMemory.url },
        ],
        database,
      ),
    ];
    const db = config.database.kind === 'postgres' ? 'PostgreSQL' : 'in-memory PGlite';
    return [
      `Query \`${QUERY}\` (cost ${cost} of ${limits.maxComplexity}; 5 users, 25 posts, 25 authors per response). ` +
        `Database variant: ${USERS} users × ${POSTS_PER_USER} posts on ${db}, our resolvers and DataLoaders. ` +
        `In-memory variant: the same SDL and directives over a resolver map reading arrays. ` +
        `Each variant: the same schema and context function (our GraphQLContext, anonymous) for all three servers (database: the app's own buildGraphQLSchema() for ours, a second build by the same function shared by Yoga and Mercurius; in-memory: one schema object for all three); ` +
        `autocannon ${CONNECTIONS} connections, POST on loopback, from a worker thread; each server warmed up for ${WARMUP_SECONDS} s, then measured ${ROUNDS} × ${SECONDS} s in interleaved rounds (the order rotating each round); req/s and p99 are each server's median round, a ratio is the median of the ${ROUNDS} per-round ratios (min–max in brackets).`,
      '',
      '| resolvers | ours req/s | ours p99 ms | Yoga req/s | Yoga p99 ms | Mercurius+jit req/s | Mercurius+jit p99 ms | ours / Yoga | ours / Mercurius+jit |',
      '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
      ...rows,
      '',
      'Target: ours ≥ 1.0× Yoga and ≥ 1.0× Mercurius+jit.',
    ].join('\n');
  } finally {
    for (const close of closers.reverse()) await close();
    await load.close();
    await database.close();
  }
}
