/**
 * `npx tsx scripts/bench/graphql-cost.ts`: the measurements the GraphQL cost model is calibrated on
 * (docs/graphql.md, "Limits"). On an embedded PostgreSQL whose lists are full to the schema's bounds
 * (every post 10 tags and 10 comments of 5 replies, every user 10 posts and 100 followers), it runs
 * each query of cost-queries.ts through the real server with the complexity limit lifted and prints,
 * per query: the statements sent (observeQueries), the rows the database read (the sum of actual rows
 * × loops of every scan node of each statement's EXPLAIN ANALYZE), the objects in the response, the
 * median wall time in process, and the estimate of the current cost model.
 */
import { parse } from 'graphql';
import { sql, type Kysely } from 'kysely';
import pg from 'pg';
import type { DB } from '../../generated/db/types.ts';
import { loadConfig } from '../../src/config.ts';
import { buildContentSchema } from '../../src/content/content.graph.ts';
import { operationComplexity } from '../../src/graphql/limits.ts';
import { createServer } from '../../src/server.ts';
import { HOSTILE, REALISTIC, type CostQuery } from './cost-queries.ts';
import { seedPostgres, startPostgres } from './databases.ts';
import { JWT_SECRET } from './fixtures.ts';

const USERS = 120;

async function seedFull(db: Kysely<DB>): Promise<void> {
  await sql`
    insert into users (id, username, email, display_name)
    select 'user-' || lpad(u::text, 3, '0'), 'user' || u, 'user' || u || '@example.test', 'User ' || u
    from generate_series(0, ${USERS - 1}) u`.execute(db);
  await sql`
    insert into posts (author_id, title, content, slug, status, published_at, created_at, updated_at)
    select 'user-' || lpad(u::text, 3, '0'), 'Post ' || p || ' of user' || u, repeat('Lorem ipsum ', 20),
           'post-' || u || '-' || p, 'PUBLISHED', now(), now() - (p * interval '1 minute'), now()
    from generate_series(0, ${USERS - 1}) u, generate_series(0, 9) p`.execute(db);
  await sql`insert into tags (name) select 'tag' || t from generate_series(0, 29) t`.execute(db);
  await sql`
    insert into post_tags (post_id, tag_id, position)
    select p.id, t.id, t.id from posts p join tags t on (t.id + p.id) % 3 = 0`.execute(db);
  await sql`
    insert into comments (post_id, author_id, content)
    select p.id, 'user-' || lpad(((p.id + c) % ${USERS})::text, 3, '0'), 'Comment ' || c
    from posts p, generate_series(0, 9) c`.execute(db);
  await sql`
    insert into comments (post_id, author_id, parent_id, content)
    select c.post_id, c.author_id, c.id, 'Reply ' || r from comments c, generate_series(0, 4) r`.execute(db);
  await sql`
    insert into follows (follower_id, followee_id)
    select 'user-' || lpad(((u + f) % ${USERS})::text, 3, '0'), 'user-' || lpad(u::text, 3, '0')
    from generate_series(0, ${USERS - 1}) u, generate_series(1, 100) f`.execute(db);
  await sql`analyze`.execute(db);
}

interface PlanNode {
  'Node Type': string;
  'Actual Rows': number;
  'Actual Loops': number;
  Plans?: PlanNode[];
}

const scannedRows = (node: PlanNode): number =>
  (node['Node Type'].endsWith('Scan') ? node['Actual Rows'] * node['Actual Loops'] : 0) +
  (node.Plans ?? []).reduce((sum, child) => sum + scannedRows(child), 0);

const objects = (value: unknown): number =>
  Array.isArray(value)
    ? value.reduce((sum: number, item) => sum + objects(item), 0)
    : value && typeof value === 'object'
      ? 1 + Object.values(value).reduce((sum: number, item) => sum + objects(item), 0)
      : 0;

const postgres = await startPostgres();
try {
  const url = await seedPostgres(postgres, 'bench_cost', seedFull);
  const config = loadConfig({
    NODE_ENV: 'production',
    DATABASE_URL: url,
    AUTH_JWT_SECRET: JWT_SECRET,
    SECRETS_KEY: 'explain-secrets-key-0123456789abcdef0123',
    LOG_LEVEL: 'silent',
    WEBHOOK_WORKER: 'off',
    GRAPHQL_MAX_COMPLEXITY: String(Number.MAX_SAFE_INTEGER),
  });
  const server = await createServer(config);
  const client = new pg.Client(url);
  await client.connect();
  const schema = buildContentSchema();
  const post = (await client.query<{ id: number }>('select min(id) as id from posts')).rows[0]!.id;
  try {
    console.log('| Query | Estimate | Statements | Rows read | Response objects | Median ms |\n|---|---|---|---|---|---|');
    for (const [name, { query, variables }] of Object.entries({ ...REALISTIC, ...HOSTILE }) as [string, CostQuery][]) {
      const vars = { user: 'user-000', post: String(post), ...variables };
      const declared = (v: string) => query.includes(`$${v}:`);
      const payload = { query, variables: Object.fromEntries(Object.entries(vars).filter(([k]) => declared(k))) };
      const send = () =>
        server.app.http.inject({ method: 'POST', url: '/graphql', headers: { 'content-type': 'application/json' }, payload });
      const estimate = operationComplexity(schema, parse(query), payload.variables, undefined);
      const first = await send();
      const body = first.json<{ data?: unknown; errors?: { extensions?: { code?: string } }[] }>();
      if (body.errors) {
        console.log(`| ${name} | ${estimate} | refused: ${body.errors[0]?.extensions?.code} | | | |`);
        continue;
      }
      const statements: { sql: string; parameters: readonly unknown[] }[] = [];
      const stop = server.database.observeQueries((text, parameters) => statements.push({ sql: text, parameters }));
      await send();
      stop();
      let rows = 0;
      for (const statement of statements) {
        const { rows: plan } = await client.query<{ 'QUERY PLAN': { Plan: PlanNode }[] }>(
          `explain (analyze, format json) ${statement.sql}`,
          statement.parameters as unknown[],
        );
        rows += scannedRows(plan[0]!['QUERY PLAN'][0]!.Plan);
      }
      // Repeated until a second is spent (at least 5 times): the median of those runs.
      const times: number[] = [];
      const started = Date.now();
      while (times.length < 5 || (Date.now() - started < 1000 && times.length < 50)) {
        const at = process.hrtime.bigint();
        await send();
        times.push(Number(process.hrtime.bigint() - at) / 1e6);
      }
      const median = times.sort((a, b) => a - b)[Math.floor(times.length / 2)]!;
      console.log(`| ${name} | ${estimate} | ${statements.length} | ${rows} | ${objects(body.data)} | ${median.toFixed(2)} |`);
    }
  } finally {
    await client.end();
    await server.close();
  }
} finally {
  await postgres.stop();
}
