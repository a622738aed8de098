/**
 * Cursor, keyset and feed pages seek on a composite (created_at, id) index and never sort or OFFSET.
 * EXPLAIN runs on the exact SQL the repository builds, over enough analyzed rows that a sequential
 * scan plus sort would be the planner's choice if the query did not fit the index. Runs on
 * PostgreSQL, and on PGlite, which is the same planner compiled to WASM.
 */
import { CompiledQuery, sql } from 'kysely';
import t from 'tap';
import { buildSeekQuery, type SeekQuery } from '../../src/content/post-lists.repository.ts';
import { listed } from '../../src/content/post-visibility.ts';
import { as } from '../graphql/gql.ts';
import { sharedServer } from '../helpers/server.ts';
import { Seed } from './seed.ts';

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Index Cond'?: string;
  'Relation Name'?: string;
  Plans?: PlanNode[];
}

// posts_author_drafts_idx (migration 0004) is the same ordering restricted to drafts.
const COMPOSITE = ['posts_created_id_idx', 'posts_status_created_id_idx', 'posts_author_created_id_idx', 'posts_author_drafts_idx'];

function nodes(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodes)];
}

t.test('seek queries use the composite indexes, with no Sort and no OFFSET', async (t) => {
  const server = await sharedServer();
  const { db } = server.database;
  await new Seed(db).users(...Array.from({ length: 50 }, (_, i) => `user${i}`));
  await sql`
    insert into posts (author_id, title, content, slug, status, created_at)
    select 'user' || (g % 50), 'Title ' || g, 'Body', 'explain-' || g,
           case when g % 7 = 0 then 'DRAFT' when g % 11 = 0 then 'ARCHIVED' else 'PUBLISHED' end,
           timestamptz '2024-01-01' + (g / 3) * interval '1 second'
    from generate_series(1, 20000) g`.execute(db);
  await sql`analyze posts`.execute(db);
  const middle = (
    await sql<{ c: string; id: number }>`
    select to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as c, id
    from posts order by created_at desc, id desc offset 10000 limit 1`.execute(db)
  ).rows[0]!;

  const cases: [string, SeekQuery][] = [
    ['standard first page, anonymous', { visibility: listed(null), direction: 'older', from: null, limit: 21 }],
    ['cursor page, anonymous', { visibility: listed(null), direction: 'older', from: { createdAt: middle.c, id: middle.id }, limit: 21 }],
    [
      'keyset page with created_before only',
      { visibility: listed(null), direction: 'older', from: { createdAt: middle.c, id: null }, limit: 21 },
    ],
    [
      'cursor page, signed in (published + own drafts)',
      { visibility: listed(as('user7')), direction: 'older', from: { createdAt: middle.c, id: middle.id }, limit: 21 },
    ],
    ['standard first page, signed in', { visibility: listed(as('user7')), direction: 'older', from: null, limit: 21 }],
    [
      'standard first page, ADMIN (listed as any author)',
      { visibility: listed(as('user7', ['ADMIN'])), direction: 'older', from: null, limit: 21 },
    ],
    [
      'feed after (newer), anonymous',
      { visibility: listed(null), direction: 'newer', from: { createdAt: middle.c, id: middle.id }, limit: 21 },
    ],
    [
      'feed after (newer), signed in',
      { visibility: listed(as('user7')), direction: 'newer', from: { createdAt: middle.c, id: middle.id }, limit: 21 },
    ],
  ];
  for (const [label, query] of cases) {
    const compiled = buildSeekQuery(db, query).compile();
    t.notMatch(compiled.sql, /\boffset\b/i, `${label}: the SQL has no OFFSET`);
    const result = await db.executeQuery<{ 'QUERY PLAN': unknown }>(
      CompiledQuery.raw(`explain (format json) ${compiled.sql}`, [...compiled.parameters]),
    );
    const raw = result.rows[0]!['QUERY PLAN'];
    const plan = ((typeof raw === 'string' ? JSON.parse(raw) : raw) as { Plan: PlanNode }[])[0]!.Plan;
    const all = nodes(plan);
    const types = all.map((n) => n['Node Type']);
    const scans = all.filter((n) => n['Relation Name'] === 'posts');
    const detail = JSON.stringify(plan);
    t.notOk(
      types.some((type) => /Sort/.test(type)),
      `${label}: no Sort node (${types.join(' > ')})`,
    );
    t.ok(
      scans.length > 0 && scans.every((n) => /^Index (Only )?Scan$/.test(n['Node Type'])),
      `${label}: posts is read by index scans only (${types.join(' > ')})`,
    );
    t.ok(
      scans.every((n) => COMPOSITE.includes(n['Index Name'] ?? '')),
      `${label}: on a composite (created_at, id) index (${scans.map((n) => n['Index Name']).join(', ')})`,
    );
    t.equal(scans.length, query.visibility.length, `${label}: one index scan per visibility branch`);
    if (query.from) {
      t.ok(
        scans.every((n) => /created_at/.test(n['Index Cond'] ?? '')),
        `${label}: the position is an index condition, a seek rather than a filter\n${detail}`,
      );
    }
  }
});
