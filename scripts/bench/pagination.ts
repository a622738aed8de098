/**
 * Page 1 versus page 500 (20 items a page, 10,000 posts) in the cursor form and in the offset form,
 * over HTTP against the full application on in-memory PGlite. The cursor form seeks on the
 * (created_at, id) index, so its page 500 should cost about what page 1 costs (target ≤ 1.5×); the
 * offset form reads and discards the 9,980 rows before its page 500.
 *
 * Samples are interleaved (one request per case per round) so drift affects every case alike.
 */
import { listen, startBenchApp } from './_app.ts';
import { performance } from 'node:perf_hooks';
import { sql } from 'kysely';

const POSTS = 10_000;
const PAGE_SIZE = 20;
const FAR_PAGE = 500;
const WARMUP_ROUNDS = 50;
const ROUNDS = 400;

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
}

async function fetchJson(url: string): Promise<any> {
  const response = await fetch(url);
  if (response.status !== 200) throw new Error(`${url}: ${response.status} ${await response.text()}`);
  return response.json();
}

export async function run(): Promise<string> {
  const { http, database } = await startBenchApp({ database: { kind: 'pglite-memory' } });
  try {
    await database.db
      .insertInto('users')
      .values({ id: 'bench', username: 'bench', email: 'bench@example.test', display_name: 'Bench' })
      .execute();
    // One statement, three posts per second of created_at, so the id tiebreaker is exercised too.
    await sql`
      insert into posts (author_id, title, content, slug, status, created_at, updated_at)
      select 'bench', 'Post ' || g, 'Body ' || g, 'bench-' || g, 'PUBLISHED',
             timestamptz '2024-01-01' + (g / 3) * interval '1 second', timestamptz '2024-01-01' + (g / 3) * interval '1 second'
      from generate_series(1, ${POSTS}) g`.execute(database.db);
    await sql`analyze posts`.execute(database.db);
    const base = await listen(http);

    // Walk to the cursor that opens page 500, as a client would.
    let cursor: string = (await fetchJson(`${base}/posts?limit=${PAGE_SIZE}`)).pagination.cursor;
    for (let page = 2; page < FAR_PAGE; page++) cursor = (await fetchJson(`${base}/posts?limit=${PAGE_SIZE}&after=${cursor}`)).cursor;

    const cases = [
      { form: 'cursor', page: 1, url: `${base}/posts?limit=${PAGE_SIZE}` },
      { form: 'cursor', page: FAR_PAGE, url: `${base}/posts?limit=${PAGE_SIZE}&after=${cursor}` },
      { form: 'offset', page: 1, url: `${base}/posts?offset=0&limit=${PAGE_SIZE}` },
      { form: 'offset', page: FAR_PAGE, url: `${base}/posts?offset=${(FAR_PAGE - 1) * PAGE_SIZE}&limit=${PAGE_SIZE}` },
    ];
    for (const c of cases) {
      const body = await fetchJson(c.url);
      if (body.data.length !== PAGE_SIZE) throw new Error(`${c.form} page ${c.page} returned ${body.data.length} items`);
    }
    const samples = cases.map(() => [] as number[]);
    for (let round = 0; round < WARMUP_ROUNDS + ROUNDS; round++) {
      for (let i = 0; i < cases.length; i++) {
        const index = (i + round) % cases.length;
        const started = performance.now();
        await fetchJson(cases[index]!.url);
        if (round >= WARMUP_ROUNDS) samples[index]!.push(performance.now() - started);
      }
    }
    const stats = samples.map((s) => {
      const sorted = [...s].sort((a, b) => a - b);
      return { median: quantile(sorted, 0.5), p99: quantile(sorted, 0.99) };
    });
    const ms = (v: number) => v.toFixed(2);
    const rows = ['cursor', 'offset'].map((form) => {
      const first = stats[cases.findIndex((c) => c.form === form && c.page === 1)]!;
      const far = stats[cases.findIndex((c) => c.form === form && c.page === FAR_PAGE)]!;
      return `| ${form} | ${ms(first.median)} | ${ms(first.p99)} | ${ms(far.median)} | ${ms(far.p99)} | ${(far.median / first.median).toFixed(2)}× |`;
    });
    return [
      `${POSTS.toLocaleString('en')} published posts, ${PAGE_SIZE} per page, in-memory PGlite, full app over HTTP on loopback; ${ROUNDS} interleaved samples per case after ${WARMUP_ROUNDS} warm-up rounds. Times in ms.`,
      '',
      `| form | page 1 median | page 1 p99 | page ${FAR_PAGE} median | page ${FAR_PAGE} p99 | page ${FAR_PAGE} / page 1 (median) |`,
      '|---|---:|---:|---:|---:|---:|',
      ...rows,
      '',
      `Target: cursor page ${FAR_PAGE} ≤ 1.5× cursor page 1.`,
    ].join('\n');
  } finally {
    await http.close();
    await database.close();
  }
}
