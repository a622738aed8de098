/**
 * What the per-request credential check costs (decisions 63, 151): the same authenticated request,
 * GET /api/v1/products/{id} with a bearer credential naming a stored user, to our application
 * checking the credential against the database as in production (the query's answer kept while the
 * credential epoch stands: one epoch read shared by the requests that arrive together) and to the
 * same application whose credential store answers from memory what the database would (no query;
 * everything else, JWT verification included, the same). Both through the
 * same wiring (`scripts/bench/ours.ts` via serve.ts), on PGlite and PostgreSQL; a JWT and a session
 * token. The anonymous request is a third target, for reference.
 */
import { signToken } from '../../src/auth/jwt.ts';
import { runCase, type BenchRequest, type CaseResult } from './compare.ts';
import { DATA_LABEL, startPeer, stopAll, type BenchContext, type Data, type SectionResult } from './context.ts';
import { seedPostgres, seedPGlite } from './databases.ts';
import { AUTH_USERS, AUTH_VIEWER, JWT_SECRET, PRODUCT_ID, authSessionToken, authUserId, seedAuth } from './fixtures.ts';
import type { Server } from './procs.ts';

const LOOKUP = 'look-up';
const MEMORY = 'store in memory';
const ANONYMOUS = 'anonymous';

async function runData(ctx: BenchContext, data: Data, jwt: string): Promise<CaseResult[]> {
  const servers: Server[] = [];
  try {
    const lookup = await startPeer(ctx, LOOKUP, 'ours-db', data);
    servers.push(lookup);
    const memory = await startPeer(ctx, MEMORY, 'ours-db-memory-credentials', data);
    servers.push(memory);
    const results: CaseResult[] = [];
    for (const [variant, token] of [
      ['JWT naming a stored user', jwt],
      ['session token', authSessionToken(AUTH_VIEWER)],
    ] as const) {
      const id = `auth/${data.kind}/${variant.startsWith('JWT') ? 'jwt' : 'session'}`;
      ctx.log(id);
      const request = (authorization: string | null): BenchRequest => ({
        method: 'GET',
        path: `/api/v1/products/${PRODUCT_ID}`,
        headers: { accept: 'application/json', ...(authorization ? { authorization } : {}) },
      });
      results.push(
        await runCase(
          {
            id,
            title: `Auth, ${DATA_LABEL[data.kind]}: GET /api/v1/products/{id}, ${variant}`,
            targets: [
              { name: LOOKUP, server: lookup, request: request(`Bearer ${token}`) },
              { name: MEMORY, server: memory, request: request(`Bearer ${token}`) },
              { name: ANONYMOUS, server: lookup, request: request(null) },
            ],
            ratios: [
              { label: 'look-up / store in memory', numerator: LOOKUP, denominator: MEMORY, kind: 'throughput', goal: { atLeast: 0.95 } },
              { label: 'look-up / anonymous', numerator: LOOKUP, denominator: ANONYMOUS, kind: 'throughput' },
            ],
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
  const jwt = await signToken(JWT_SECRET, { sub: authUserId(AUTH_VIEWER), expiresIn: 24 * 3600 });
  const cases: CaseResult[] = [];
  if (ctx.runs('pglite')) {
    const pglite = await seedPGlite(seedAuth);
    try {
      cases.push(...(await runData(ctx, { kind: 'pglite', dataDir: pglite.copy }, jwt)));
    } finally {
      pglite.remove();
    }
  }
  if (ctx.runs('postgres')) {
    const url = await seedPostgres(await ctx.postgres(), 'bench_auth', seedAuth);
    cases.push(...(await runData(ctx, { kind: 'postgres', url }, jwt)));
  }
  return {
    name: 'auth',
    notes: [
      `Data: the products of the REST section, ${AUTH_USERS.toLocaleString('en')} users with one live session each; the caller is one of them.`,
      `**${LOOKUP}** = our application (the wiring of src/server.ts through \`scripts/bench/ours.ts\` and tsx, production configuration) checking every bearer credential against the database: its answer (the session by its token digest joined to its user; for a JWT, the user by id or its deletion record) kept while the credential epoch, read once for the requests that arrive together, stands (decision 151). **${MEMORY}** = the same application given a credential store that answers from memory what the database holds for the caller, so the only difference is the query. **${ANONYMOUS}** = the look-up server without a credential.`,
      'Target: look-up ≥ 0.95× store in memory (the check costs under 5 % of an authenticated request).',
    ],
    cases,
  };
}
