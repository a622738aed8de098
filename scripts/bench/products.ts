/**
 * REST: ours (production configuration) against a bare Fastify route making the same repository
 * call and representation, serialised by the OpenAPI response schema. On a stubbed repository (the
 * stack's own cost), PGlite and PostgreSQL.
 */
import { signToken } from '../../src/auth/jwt.ts';
import { runCase, type BenchRequest, type CaseResult } from './compare.ts';
import { DATA_LABEL, startOurs, startPeer, stopAll, type BenchContext, type Data, type SectionResult } from './context.ts';
import { seedPostgres, seedPGlite } from './databases.ts';
import { JWT_SECRET, PRODUCTS, PRODUCT_ID, VIEWER, seedProducts } from './fixtures.ts';
import type { Server } from './procs.ts';

export interface Variant {
  id: string;
  title: string;
  path: string;
  bearer: boolean;
}

const BY_ID: Variant = { id: 'by-id', title: 'GET /api/v1/products/{id}', path: `/api/v1/products/${PRODUCT_ID}`, bearer: false };
const BY_ID_BEARER: Variant = {
  id: 'by-id-bearer',
  title: 'GET /api/v1/products/{id}, bearer token',
  path: `/api/v1/products/${PRODUCT_ID}`,
  bearer: true,
};
const PAGE: Variant = { id: 'page', title: 'GET /api/v1/products?size=20', path: '/api/v1/products?size=20', bearer: false };
export const REST_VARIANTS = [BY_ID, BY_ID_BEARER, PAGE];

async function runData(ctx: BenchContext, data: Data, variants: Variant[], token: string): Promise<CaseResult[]> {
  const servers: Server[] = [];
  try {
    servers.push(await startOurs(ctx, data, 'ours-stub'));
    servers.push(await startPeer(ctx, 'bare Fastify', 'fastify-bare', data));
    const results: CaseResult[] = [];
    for (const variant of variants) {
      const id = `products/${data.kind}/${variant.id}`;
      ctx.log(id);
      const request = (server: Server): BenchRequest => ({
        method: 'GET',
        path: variant.path,
        headers: { accept: 'application/json', ...(variant.bearer ? { authorization: `Bearer ${token}` } : {}) },
      });
      results.push(
        await runCase(
          {
            id,
            title: `REST, ${DATA_LABEL[data.kind]}: ${variant.title}`,
            targets: servers.map((server) => ({ name: server.name, server, request: request(server) })),
            ratios: [
              {
                label: 'ours / bare Fastify',
                numerator: 'ours',
                denominator: 'bare Fastify',
                kind: 'throughput',
                ...(data.kind === 'stub' ? { goal: { atLeast: 0.92 } } : {}),
              },
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
  const token = await signToken(JWT_SECRET, { sub: VIEWER, expiresIn: 24 * 3600 });
  const cases: CaseResult[] = [];
  if (ctx.runs('stand-in')) cases.push(...(await runData(ctx, { kind: 'stub' }, [BY_ID, BY_ID_BEARER, PAGE], token)));
  if (ctx.runs('pglite')) {
    const pglite = await seedPGlite(seedProducts);
    try {
      cases.push(...(await runData(ctx, { kind: 'pglite', dataDir: pglite.copy }, [BY_ID, BY_ID_BEARER, PAGE], token)));
    } finally {
      pglite.remove();
    }
  }
  if (ctx.runs('postgres')) {
    const url = await seedPostgres(await ctx.postgres(), 'bench_products', seedProducts);
    cases.push(...(await runData(ctx, { kind: 'postgres', url }, [BY_ID, BY_ID_BEARER, PAGE], token)));
  }
  return {
    name: 'products',
    notes: [
      `Data: ${PRODUCTS.toLocaleString('en')} products with one attribute each (the same rows in the stub, each server's PGlite copy and one PostgreSQL database).`,
      '**ours** = on a database, the built `dist/src/main.js` as `npm start` runs it (production, info logs to /dev/null, auth hook, generated validators, negotiation); on the stubbed repository, the wiring of src/server.ts that src/main.ts uses (`scripts/bench/ours.ts`, through tsx) over a Kysely whose driver answers from memory (`scripts/bench/stub-database.ts`: queries are still built and compiled, nothing runs them). Its RSS there includes the in-memory PGlite it still opens, as the application opens its database at start (the event listener). **bare Fastify** = one route per request calling the same repository function (`findProductById`, `pageProducts`) and representation (`toProductResponse`, `toPagedProductResponse`), serialised by a response schema taken from the OpenAPI document (fast-json-stringify); no validation, negotiation or logging; on the bearer-token row the same credential check as ours (`bearerAuthentication` over the same verifier and credential store, which on the stub answers without a query).',
      'The bearer-token row sends the token to both servers.',
      'Target: ours ≥ 0.92× bare Fastify on the stubbed repository, every row.',
    ],
    cases,
  };
}
