/**
 * GraphQL: ours (production configuration) against Mercurius with `jit: 1`, graphql-yoga with
 * @envelop/graphql-jit and its extras off, and graphql-yoga as it comes, all serving our SDL,
 * directives and resolvers with our context (the caller resolved by the same passport strategy).
 * On in-memory resolvers (the stack's own cost), PGlite and PostgreSQL.
 */
import { parse } from 'graphql';
import { signToken } from '../../src/auth/jwt.ts';
import { loadConfig } from '../../src/config.ts';
import { graphqlLimits } from '../../src/graphql/limits.ts';
import { operationComplexity } from '../../src/graphql/limits.ts';
import { buildContentSchema } from '../../src/content/content.graph.ts';
import { runCase, type BenchRequest, type CaseResult, type RatioSpec } from './compare.ts';
import { DATA_LABEL, startOurs, startPeer, stopAll, type BenchContext, type Data, type SectionResult } from './context.ts';
import { seedPostgres, seedPGlite } from './databases.ts';
import { GRAPHQL_POSTS_PER_USER, GRAPHQL_USERS, JWT_SECRET, MEMORY_GRAPHQL_PATH, OPERATIONS, VIEWER, seedGraphQL } from './fixtures.ts';
import type { Server } from './procs.ts';

export type Variant = 'feed' | 'feed-bearer' | 'large' | 'mutation';
export const VARIANTS: Variant[] = ['feed', 'feed-bearer', 'large', 'mutation'];

const VARIANT_TITLE: Record<Variant, string> = {
  feed: 'query with variables, anonymous',
  'feed-bearer': 'query with variables, bearer token',
  large: 'large query (~50 kB response), anonymous',
  mutation: 'mutation addComment, bearer token',
};

const PEERS = [
  { name: 'Mercurius+jit', kind: 'mercurius', goal: true },
  { name: 'Yoga+jit', kind: 'yoga-jit', goal: true },
  { name: 'Yoga defaults', kind: 'yoga-defaults', goal: false },
];

function checkCosts(): string {
  const limits = graphqlLimits(loadConfig({ NODE_ENV: 'production', AUTH_JWT_SECRET: JWT_SECRET, SECRETS_KEY: JWT_SECRET }));
  const schema = buildContentSchema();
  const costs = Object.entries(OPERATIONS).map(([name, op]) => {
    const cost = operationComplexity(schema, parse(op.query), op.variables, null);
    if (cost === null || cost > limits.maxComplexity)
      throw new Error(`operation ${name} costs ${cost}, over the limit of ${limits.maxComplexity}`);
    return `${name} ${cost}`;
  });
  return `${costs.join(', ')} (limit ${limits.maxComplexity})`;
}

export function request(variant: Variant, path: string, token: string): BenchRequest {
  const op = variant === 'mutation' ? OPERATIONS.mutation : variant === 'large' ? OPERATIONS.large : OPERATIONS.feed;
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
  if (variant === 'feed-bearer' || variant === 'mutation') headers.authorization = `Bearer ${token}`;
  return { method: 'POST', path, headers, body: JSON.stringify({ query: op.query, variables: op.variables }) };
}

async function runData(ctx: BenchContext, data: Data, variants: Variant[], token: string, goals: boolean): Promise<CaseResult[]> {
  const servers: Server[] = [];
  try {
    const ours = await startOurs(ctx, data, 'ours-memory');
    servers.push(ours);
    for (const peer of PEERS) servers.push(await startPeer(ctx, peer.name, peer.kind, data));
    const results: CaseResult[] = [];
    for (const variant of variants) {
      const ratios: RatioSpec[] = PEERS.map((peer) => ({
        label: `ours / ${peer.name}`,
        numerator: 'ours',
        denominator: peer.name,
        kind: 'throughput',
        // Past the fastest peer on our own stack's cost (in-memory resolvers); level with it elsewhere.
        ...(goals && peer.goal ? { goal: { atLeast: data.kind === 'memory' && peer.kind === 'mercurius' ? 1.1 : 1.0 } } : {}),
      }));
      const id = `graphql/${data.kind}/${variant}`;
      ctx.log(`${id}`);
      results.push(
        await runCase(
          {
            id,
            title: `GraphQL, ${DATA_LABEL[data.kind]}: ${VARIANT_TITLE[variant]}`,
            targets: servers.map((server) => ({
              name: server.name,
              server,
              request: request(variant, server.name === 'ours' && data.kind === 'memory' ? MEMORY_GRAPHQL_PATH : '/graphql', token),
            })),
            ratios,
          },
          ctx.load,
          ctx.settings,
          ctx.random,
          ctx.log,
        ),
      );
    }
    return results;
  } finally {
    await stopAll(servers);
  }
}

export async function run(ctx: BenchContext): Promise<SectionResult> {
  const costs = checkCosts();
  const token = await signToken(JWT_SECRET, { sub: VIEWER, expiresIn: 24 * 3600 });
  const cases: CaseResult[] = [];
  if (ctx.runs('stand-in')) cases.push(...(await runData(ctx, { kind: 'memory' }, VARIANTS, token, true)));
  if (ctx.runs('pglite')) {
    const pglite = await seedPGlite(seedGraphQL);
    try {
      cases.push(...(await runData(ctx, { kind: 'pglite', dataDir: pglite.copy }, VARIANTS, token, false)));
    } finally {
      pglite.remove();
    }
  }
  if (ctx.runs('postgres')) {
    const url = await seedPostgres(await ctx.postgres(), 'bench_graphql', seedGraphQL);
    cases.push(...(await runData(ctx, { kind: 'postgres', url }, VARIANTS, token, true)));
  }

  return {
    name: 'graphql',
    notes: [
      `Operations (\`scripts/bench/fixtures.ts\`): \`${OPERATIONS.feed.query}\` with variables ${JSON.stringify(OPERATIONS.feed.variables)} (5 users, 25 posts, 25 authors); the same with each post's \`content\` (the large query); \`${OPERATIONS.mutation.query}\`. Costs under our model: ${costs}.`,
      `Data: ${GRAPHQL_USERS} users × ${GRAPHQL_POSTS_PER_USER} posts (~1.9 kB of content each), the same rows in memory, in each server's copy of a seeded PGlite directory and in one PostgreSQL database. In memory the mutation builds the comment and returns it without keeping it.`,
      'Servers: **ours** = on a database, `node --enable-source-maps dist/src/main.js` (built by scripts/build.mjs at the start of the run) exactly as `npm start` runs it (NODE_ENV=production, LOG_LEVEL=info with stdout to /dev/null, the auth hook live); on in-memory resolvers, the wiring of src/server.ts that src/main.ts uses (`scripts/bench/ours.ts`, through tsx) with the in-memory schema on a second route. Its RSS there includes the in-memory PGlite it still opens, as the application opens its database at start (the event listener). **Mercurius+jit** = Fastify + mercurius `{ jit: 1 }`. **Yoga+jit** = `createYoga` with `useGraphQlJit()` (@envelop/graphql-jit over the same graphql-jit 0.8.9), `landingPage`, `graphiql`, `cors`, `maskedErrors` and `logging` off, on `node:http`. **Yoga defaults** = `createYoga({ schema, context, graphqlEndpoint })`. Every peer serves the schema built by our `buildContentSchema()` (or the in-memory one) with our context, the caller resolved from the bearer token by the same strategy and verifier as ours.',
      'Targets: ours ≥ 1.1× Mercurius+jit on in-memory resolvers, ≥ 1.0× Yoga+jit there, and ≥ 1.0× both on PostgreSQL (every operation carries the goal; PGlite and Yoga defaults are reported without one). Every target on in-memory resolvers checks the bearer token against the same credential store (the stub: no stored user, the credential epoch never moves).',
    ],
    cases,
  };
}
