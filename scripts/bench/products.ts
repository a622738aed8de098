/**
 * `GET /api/v1/products/{id}` and `GET /api/v1/products?size=20` through the full application
 * (authentication hook, generated validators, negotiation, representation) against a bare Fastify app
 * answering the same paths with the same Kysely queries over the same database handle. autocannon
 * drives both on loopback with the same connections and duration, one after the other, in one run.
 * Target: the full stack serves at least 0.8x the bare route's requests per second.
 *
 * Database: in-memory PGlite, or the PostgreSQL server named by DATABASE_URL.
 */
import { listen, startBenchApp } from './_app.ts';
import { randomBytes } from 'node:crypto';
import autocannon from 'autocannon';
import Fastify, { type FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { findProductById, pageProducts } from '../../src/catalog/products.repository.ts';
import { type Database } from '../../src/db/database.ts';

const PRODUCTS = 1_000;
const CONNECTIONS = 10;
const WARMUP_SECONDS = 2;
const SECONDS = 8;

interface Measurement {
  rps: number;
  p99: number;
}

async function measure(url: string, duration: number): Promise<Measurement> {
  const result = await autocannon({ url, connections: CONNECTIONS, duration });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return { rps: result.requests.average, p99: result.latency.p99 };
}

/** The same queries as the catalog repository, with no validation, auth, negotiation or mapping. */
function bareApp(db: Database): FastifyInstance {
  const bare = Fastify({ logger: false });
  bare.get<{ Params: { id: string } }>('/api/v1/products/:id', async (request) => findProductById(db, request.params.id));
  bare.get<{ Querystring: { size?: string } }>('/api/v1/products', async (request) => {
    const size = Number(request.query.size ?? 20);
    const { rows, total } = await pageProducts(db, { orders: [{ field: 'createdAt', direction: 'desc' }], page: 0, size });
    return { content: rows, total };
  });
  return bare;
}

export async function run(): Promise<string> {
  const { http, database, config } = await startBenchApp();
  const bare = bareApp(database.db);
  try {
    const prefix = `BENCH-${randomBytes(3).toString('hex').toUpperCase()}`;
    await sql`
      insert into products (name, description, price, sku, category, stock_quantity, created_at)
      select 'Product ' || g, 'Description of product ' || g, (g % 1000) + 0.99, ${prefix} || '-' || g,
             (array['HOME','BOOKS','TOYS','SPORTS'])[1 + g % 4], g % 50, now() - g * interval '1 second'
      from generate_series(1, ${PRODUCTS}) g`.execute(database.db);
    await sql`insert into product_attributes (product_id, position, key, value) select id, 0, 'colour', 'black' from products`.execute(
      database.db,
    );
    await sql`analyze products`.execute(database.db);
    const { id } = await database.db.selectFrom('products').select('id').where('sku', '=', `${prefix}-500`).executeTakeFirstOrThrow();

    const ours = await listen(http);
    const theirs = await listen(bare);
    const cases = [
      { label: `GET /api/v1/products/{id}`, path: `/api/v1/products/${id}` },
      { label: 'GET /api/v1/products?size=20', path: '/api/v1/products?size=20' },
    ];
    const rows: string[] = [];
    for (const c of cases) {
      for (const base of [ours, theirs]) {
        const check = await fetch(`${base}${c.path}`);
        if (check.status !== 200) throw new Error(`${base}${c.path}: ${check.status}`);
        await measure(`${base}${c.path}`, WARMUP_SECONDS);
      }
      const full = await measure(`${ours}${c.path}`, SECONDS);
      const baseline = await measure(`${theirs}${c.path}`, SECONDS);
      rows.push(
        `| ${c.label} | ${full.rps.toFixed(0)} | ${full.p99} | ${baseline.rps.toFixed(0)} | ${baseline.p99} | ${(full.rps / baseline.rps).toFixed(2)}× |`,
      );
    }
    return [
      `${PRODUCTS.toLocaleString('en')} products with one attribute each, ${config.database.kind === 'postgres' ? 'PostgreSQL' : 'in-memory PGlite'}, autocannon ${CONNECTIONS} connections × ${SECONDS} s per case after a ${WARMUP_SECONDS} s warm-up, loopback. The bare route is plain Fastify running the same Kysely queries (repository functions) over the same database handle and serialising the rows as they come.`,
      '',
      '| request | full stack req/s | full stack p99 ms | bare route req/s | bare route p99 ms | ratio (req/s) |',
      '|---|---:|---:|---:|---:|---:|',
      ...rows,
      '',
      'Target: ratio ≥ 0.8×.',
    ].join('\n');
  } finally {
    await http.close();
    await bare.close();
    await database.close();
  }
}
