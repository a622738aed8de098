/**
 * Post lists at scale: cursor page 2 against cursor page 499 (neither the last), anonymous and
 * signed in, and the offset form beside them, through ours (dist/src/main.js as `npm start` runs it) on
 * PostgreSQL with about a million posts and on PGlite with fewer.
 */
import { signToken } from '../../src/auth/jwt.ts';
import { runCase, type BenchRequest, type CaseResult, type Target } from './compare.ts';
import { DATA_LABEL, startOurs, type BenchContext, type Data, type SectionResult } from './context.ts';
import { seedPostgres, seedPGlite } from './databases.ts';
import { JWT_SECRET, PAGINATION_AUTHORS, PAGINATION_VIEWER, seedPagination } from './fixtures.ts';
import type { Server } from './procs.ts';

const LIMIT = 20;
const FAR_PAGE = 499;

interface CursorPageBody {
  data: unknown[];
  cursor?: string | null;
  has_next: boolean;
  pagination?: { cursor: string | null; has_next: boolean };
}

async function getJson(server: Server, path: string, headers: Record<string, string>): Promise<CursorPageBody> {
  const response = await fetch(`${server.url}${path}`, { headers });
  if (response.status !== 200) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as CursorPageBody;
}

/** The cursors opening page 2 and page FAR_PAGE, walked as a client walks them (each minted by the server). */
async function walk(server: Server, headers: Record<string, string>): Promise<{ page2: string; far: string }> {
  const first = await getJson(server, `/posts?limit=${LIMIT}`, headers);
  const page2 = first.pagination?.cursor;
  if (!page2) throw new Error('page 1 has no next cursor');
  let cursor = page2;
  for (let page = 2; page < FAR_PAGE; page++) {
    const body = await getJson(server, `/posts?limit=${LIMIT}&after=${encodeURIComponent(cursor)}`, headers);
    if (!body.cursor) throw new Error(`page ${page} has no next cursor`);
    cursor = body.cursor;
  }
  return { page2, far: cursor };
}

async function runData(ctx: BenchContext, data: Data, posts: number, goals: boolean): Promise<CaseResult> {
  const server = await startOurs(ctx, data, 'ours-memory');
  try {
    const token = await signToken(JWT_SECRET, { sub: PAGINATION_VIEWER, expiresIn: 24 * 3600 });
    const anonymous = { accept: 'application/json' };
    const signedIn = { ...anonymous, authorization: `Bearer ${token}` };
    const anon = await walk(server, anonymous);
    const signed = await walk(server, signedIn);
    const get = (path: string, headers: Record<string, string>): BenchRequest => ({ method: 'GET', path, headers });
    const after = (cursor: string) => `/posts?limit=${LIMIT}&after=${encodeURIComponent(cursor)}`;
    const targets: Target[] = [
      { name: 'cursor p2 anonymous', server, request: get(after(anon.page2), anonymous) },
      { name: `cursor p${FAR_PAGE} anonymous`, server, request: get(after(anon.far), anonymous) },
      { name: 'cursor p2 signed in', server, request: get(after(signed.page2), signedIn) },
      { name: `cursor p${FAR_PAGE} signed in`, server, request: get(after(signed.far), signedIn) },
      { name: 'offset p2 anonymous', server, request: get(`/posts?offset=${LIMIT}&limit=${LIMIT}`, anonymous) },
      { name: `offset p${FAR_PAGE} anonymous`, server, request: get(`/posts?offset=${(FAR_PAGE - 1) * LIMIT}&limit=${LIMIT}`, anonymous) },
    ];
    const id = `pagination/${data.kind}`;
    ctx.log(id);
    const goal = goals ? { goal: { atMost: 1.5 } } : {};
    return await runCase(
      {
        id,
        title: `Post lists, ${DATA_LABEL[data.kind]}, ${posts.toLocaleString('en')} posts`,
        targets,
        ratios: [
          {
            label: `cursor p${FAR_PAGE} / p2, anonymous`,
            numerator: `cursor p${FAR_PAGE} anonymous`,
            denominator: 'cursor p2 anonymous',
            kind: 'cost',
            ...goal,
          },
          {
            label: `cursor p${FAR_PAGE} / p2, signed in`,
            numerator: `cursor p${FAR_PAGE} signed in`,
            denominator: 'cursor p2 signed in',
            kind: 'cost',
            ...goal,
          },
          {
            label: `offset p${FAR_PAGE} / p2, anonymous`,
            numerator: `offset p${FAR_PAGE} anonymous`,
            denominator: 'offset p2 anonymous',
            kind: 'cost',
          },
        ],
        check: (name, body) => {
          const page = body as CursorPageBody;
          const hasNext = page.pagination?.has_next ?? page.has_next;
          if (page.data.length !== LIMIT || !hasNext) throw new Error(`${id} · ${name}: ${page.data.length} items, has_next ${hasNext}`);
        },
      },
      ctx.load,
      ctx.settings,
      ctx.random,
      ctx.log,
    );
  } finally {
    await server.stop();
  }
}

export async function run(ctx: BenchContext): Promise<SectionResult> {
  const postgresPosts = ctx.quick ? 50_000 : 1_000_000;
  const pglitePosts = ctx.quick ? 20_000 : 100_000;
  const cases: CaseResult[] = [];
  if (ctx.runs('postgres')) {
    ctx.log(`pagination: seeding ${postgresPosts.toLocaleString('en')} posts on PostgreSQL`);
    const url = await seedPostgres(await ctx.postgres(), 'bench_pagination', (db) => seedPagination(db, postgresPosts));
    // The target is stated at 1 M rows: a --quick run on fewer carries none.
    cases.push(await runData(ctx, { kind: 'postgres', url }, postgresPosts, postgresPosts >= 1_000_000));
  }
  if (ctx.runs('pglite')) {
    ctx.log(`pagination: seeding ${pglitePosts.toLocaleString('en')} posts on PGlite`);
    const pglite = await seedPGlite((db) => seedPagination(db, pglitePosts));
    try {
      cases.push(await runData(ctx, { kind: 'pglite', dataDir: pglite.copy }, pglitePosts, false));
    } finally {
      pglite.remove();
    }
  }
  return {
    name: 'pagination',
    notes: [
      `Data: ${postgresPosts.toLocaleString('en')} posts on PostgreSQL and ${pglitePosts.toLocaleString('en')} on PGlite, over ${PAGINATION_AUTHORS.toLocaleString('en')} authors, 3 in 5 PUBLISHED, 1 DRAFT, 1 ARCHIVED, three posts per second of \`created_at\` (seeded by one INSERT ... SELECT generate_series). \`GET /posts?limit=${LIMIT}\`; the cursors of page 2 and page ${FAR_PAGE} were walked page by page as a client walks them (each minted by the server; page ${FAR_PAGE} has a next page), anonymously and signed in as \`${PAGINATION_VIEWER}\` (whose own drafts join the list). The offset form asks \`offset=${LIMIT}\` and \`offset=${(FAR_PAGE - 1) * LIMIT}\`.`,
      'One server (ours, `dist/src/main.js` as `npm start` runs it); the six requests are the targets of the rounds. A ratio here is a cost: time per request of the far page over page 2 (the inverse ratio of their req/s in the same round).',
      `Target: cursor page ${FAR_PAGE} / page 2 ≤ 1.5× at 1 M rows (PostgreSQL); PGlite is reported without one.`,
    ],
    cases,
  };
}
