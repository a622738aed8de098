/**
 * `npx tsx scripts/bench/graphql-explain.ts`: where the GraphQL benchmark's database time goes. On an
 * embedded PostgreSQL seeded like `npm run bench -- graphql` (scripts/bench/fixtures.ts), it runs the
 * feed and large queries once to warm the caches, records every statement (with its parameters) a
 * second run sends, and prints each one's `EXPLAIN (ANALYZE, BUFFERS)` as Markdown, with the
 * request's wall time beside the statements' execution and planning times.
 */
import pg from 'pg';
import { loadConfig } from '../../src/config.ts';
import { createServer } from '../../src/server.ts';
import { seedPostgres, startPostgres } from './databases.ts';
import { JWT_SECRET, OPERATIONS, seedGraphQL } from './fixtures.ts';

const postgres = await startPostgres();
try {
  const url = await seedPostgres(postgres, 'bench_explain', seedGraphQL);
  const config = loadConfig({
    NODE_ENV: 'production',
    DATABASE_URL: url,
    AUTH_JWT_SECRET: JWT_SECRET,
    SECRETS_KEY: 'explain-secrets-key-0123456789abcdef0123',
    LOG_LEVEL: 'silent',
    WEBHOOK_WORKER: 'off',
  });
  const server = await createServer(config);
  const client = new pg.Client(url);
  await client.connect();
  try {
    console.log(`# EXPLAIN of the GraphQL benchmark's statements (PostgreSQL ${postgres.version})\n`);
    for (const name of ['feed', 'large'] as const) {
      const { query, variables } = OPERATIONS[name];
      const send = () =>
        server.app.http.inject({
          method: 'POST',
          url: '/graphql',
          headers: { 'content-type': 'application/json' },
          payload: { query, variables },
        });
      for (let i = 0; i < 20; i++) await send();
      const statements: { sql: string; parameters: readonly unknown[] }[] = [];
      const stop = server.database.observeQueries((sql, parameters) => statements.push({ sql, parameters }));
      const response = await send();
      stop();
      // The median of 50 more requests, in process (light-my-request: no socket).
      const times: number[] = [];
      for (let i = 0; i < 50; i++) {
        const started = process.hrtime.bigint();
        await send();
        times.push(Number(process.hrtime.bigint() - started) / 1e6);
      }
      const wallMs = times.sort((a, b) => a - b)[25]!;
      console.log(
        `## ${name}: ${statements.length} statements, ${response.body.length} bytes, ${wallMs.toFixed(2)} ms a request (median of 50, in process)\n`,
      );
      let execution = 0;
      let planning = 0;
      for (const [i, { sql, parameters }] of statements.entries()) {
        // The second run's plan: the first pays for this connection's cold catalog caches.
        await client.query(`explain (analyze, buffers) ${sql}`, parameters as unknown[]);
        const { rows } = await client.query<{ 'QUERY PLAN': string }>(`explain (analyze, buffers) ${sql}`, parameters as unknown[]);
        const plan = rows.map((r) => r['QUERY PLAN']);
        planning += Number(/Planning Time: ([\d.]+)/.exec(plan.join('\n'))?.[1] ?? 0);
        execution += Number(/Execution Time: ([\d.]+)/.exec(plan.join('\n'))?.[1] ?? 0);
        console.log(
          `### Statement ${i + 1}\n\n\`\`\`sql\n${sql}\n\`\`\`\n\nParameters: \`${JSON.stringify(parameters)}\`\n\n\`\`\`\n${plan.join('\n')}\n\`\`\`\n`,
        );
      }
      console.log(`Planning ${planning.toFixed(3)} ms and execution ${execution.toFixed(3)} ms in all (EXPLAIN ANALYZE's own figures).\n`);
    }
  } finally {
    await client.end();
    await server.close();
  }
} finally {
  await postgres.stop();
}
