/**
 * `npm run bench [-- products (or rest)|pagination|graphql|scim|auth|webhooks|sso ...] [--db stand-in,pglite,postgres] [--quick] [--rounds N]
 *   [--seed N] [--write-doc] [--note TEXT]`; `npm run bench -- generate [--rounds N]` times `npm run generate`
 *   (scripts/bench/generate-timing.ts); `npm run bench -- portal [--rounds N]` the portal page in Chromium;
 *   `npm run bench -- profile graphql|rest [--variant V]` CPU per request by function (scripts/bench/cpu-profile.ts).
 *
 * One harness for every benchmark (scripts/bench/): servers in their own processes, the load
 * generator in another, pinned to separate cores; warm-up; short rounds in a balanced random order;
 * ratios as the median of per-round ratios with a bootstrap 95 % interval. Writes
 * bench-results/<run>/raw.json and summary.md; --write-doc also writes the summary to
 * docs/benchmarks.md, on top (under the title), replacing an earlier run of the same sections
 * wherever it was (report.ts `withRun`). --quick is a short smoke run.
 */
import { execFileSync, execSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { Settings } from './bench/compare.ts';
import { DB_CHOICES, type BenchContext, type SectionResult } from './bench/context.ts';
import type { Postgres } from './bench/databases.ts';
import { startPostgres } from './bench/databases.ts';
import { LoadGenerator } from './bench/load.ts';
import { choosePinning, ROOT } from './bench/procs.ts';
import { renderSummary, withRun, type RunMeta } from './bench/report.ts';
import { seededRandom } from './bench/stats.ts';

const SECTIONS = {
  graphql: () => import('./bench/graphql.ts'),
  products: () => import('./bench/products.ts'),
  pagination: () => import('./bench/pagination.ts'),
  scim: () => import('./bench/scim.ts'),
  auth: () => import('./bench/auth.ts'),
  webhooks: () => import('./bench/webhooks.ts'),
  sso: () => import('./bench/sso.ts'),
} as const;
type SectionName = keyof typeof SECTIONS;

// Not a server benchmark: how long the spec-change loop's generate step takes, cold and warm.
if (process.argv[2] === 'generate') {
  const { benchGenerate } = await import('./bench/generate-timing.ts');
  const rounds = Number(process.argv[process.argv.indexOf('--rounds') + 1] ?? 5);
  console.log(benchGenerate(process.argv.includes('--rounds') ? rounds : 5));
  process.exit(0);
}

// Not a comparison: the portal page's sizes and first paint in Chromium (scripts/bench/portal-timing.ts).
if (process.argv[2] === 'portal') {
  const { benchPortal } = await import('./bench/portal-timing.ts');
  const rounds = Number(process.argv[process.argv.indexOf('--rounds') + 1] ?? 20);
  console.log(await benchPortal(process.argv.includes('--rounds') ? rounds : 20));
  process.exit(0);
}

/** The stand-in commands' arguments: the case and what follows it, --variant, --rounds, --seconds. */
function standInArgs(rounds: string, seconds: string) {
  const { values, positionals } = parseArgs({
    args: process.argv.slice(3),
    allowPositionals: true,
    options: { variant: { type: 'string' }, rounds: { type: 'string', default: rounds }, seconds: { type: 'string', default: seconds } },
  });
  const [caseName = 'graphql', ...rest] = positionals;
  return { caseName, rest, variant: values.variant, rounds: Number(values.rounds), seconds: Number(values.seconds) };
}

// Where the CPU goes, ours against its peer (scripts/bench/cpu-profile.ts).
if (process.argv[2] === 'profile') {
  const { profileCase } = await import('./bench/cpu-profile.ts');
  const { caseName, variant, rounds, seconds } = standInArgs('4', '5');
  console.log(await profileCase(caseName, variant, rounds, seconds));
  process.exit(0);
}

// What a feature costs, as a setting that turns it off (scripts/bench/settings-ab.ts).
if (process.argv[2] === 'settings') {
  const { compareSettings } = await import('./bench/settings-ab.ts');
  const { caseName, rest: settings, variant, rounds, seconds } = standInArgs('8', '4');
  console.log(await compareSettings(caseName, variant, settings, rounds, seconds));
  process.exit(0);
}

// Not a comparison either: a long mixed load on PostgreSQL (scripts/bench/soak.ts).
if (process.argv[2] === 'load') {
  const { soak } = await import('./bench/soak.ts');
  const { values: load } = parseArgs({
    args: process.argv.slice(3),
    options: { minutes: { type: 'string', default: '10' }, concurrency: { type: 'string', default: '16' } },
  });
  console.log(await soak({ minutes: Number(load.minutes), concurrency: Number(load.concurrency) }));
  process.exit(0);
}

const USAGE = `Usage: npm run bench [-- SECTION... ] [--db ${DB_CHOICES.join(',')}] [--quick] [--rounds N] [--seed N] [--write-doc] [--note TEXT]
       npm run bench -- generate [--rounds N]        time \`npm run generate\`
       npm run bench -- portal [--rounds N]          the portal page's sizes and first paint in Chromium
       npm run bench -- load [--minutes N] [--concurrency N]   a long mixed load on PostgreSQL
       npm run bench -- profile graphql|rest [--variant V] [--rounds N] [--seconds N]   CPU per request by function, ours and its peer
       npm run bench -- settings graphql|rest [--variant V] [--rounds N] [--seconds N] NAME=VALUE...   ours as configured and with each setting, beside the peer

Sections: ${Object.keys(SECTIONS).join(', ')} (rest = products); none: all of them. Results go to
bench-results/<run>/; --write-doc writes the summary into docs/benchmarks.md.
`;

let parsed;
try {
  parsed = parseArgs({
    allowPositionals: true,
    options: {
      quick: { type: 'boolean', default: false },
      db: { type: 'string', default: DB_CHOICES.join(',') },
      rounds: { type: 'string' },
      seed: { type: 'string', default: '20261123' },
      'write-doc': { type: 'boolean', default: false },
      note: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
} catch (error) {
  console.error(`${(error as Error).message.split('.')[0]}\n\n${USAGE}`);
  process.exit(2);
}
const { values, positionals } = parsed;
if (values.help) {
  process.stdout.write(USAGE);
  process.exit(0);
}
/** Other names of a section: `rest` is the REST products section. */
const ALIASES: Record<string, SectionName> = { rest: 'products' };
const named = [...new Set(positionals.map((p) => ALIASES[p] ?? p))];
const unknown = named.filter((p) => !(p in SECTIONS));
if (unknown.length) {
  console.error(`unknown section(s): ${unknown.join(', ')}; expected ${Object.keys(SECTIONS).join(', ')}`);
  process.exit(2);
}
const dbs = values.db.split(',').map((d) => d.trim());
const unknownDb = dbs.filter((d) => !(DB_CHOICES as readonly string[]).includes(d));
if (unknownDb.length) {
  console.error(`unknown --db value(s): ${unknownDb.join(', ')}; expected ${DB_CHOICES.join(', ')}`);
  process.exit(2);
}
const selected = (named.length ? named : Object.keys(SECTIONS)) as SectionName[];
const fullRun = selected.length === Object.keys(SECTIONS).length && dbs.length === DB_CHOICES.length;
if (values['write-doc'] && (values.quick || (!fullRun && dbs.length !== DB_CHOICES.length))) {
  console.error(
    '--write-doc needs every database (no --db) and no --quick; the run goes on top of the file, replacing an earlier run of the same sections',
  );
  process.exit(2);
}

const quick = values.quick;
const settings: Settings = {
  // 24 is a whole number of Williams blocks for 2, 3, 4 and 6 targets (stats.ts); --quick
  // runs one block (rounds are rounded up to a whole block) of very short rounds, a smoke test only.
  rounds: Number(values.rounds ?? (quick ? 1 : 24)),
  seconds: quick ? 0.3 : 1,
  warmupSeconds: quick ? 0.3 : 2,
  connections: 10,
};
const seed = Number(values.seed);
if (!Number.isInteger(settings.rounds) || settings.rounds < 1 || !Number.isInteger(seed)) {
  console.error('--rounds must be a positive integer and --seed an integer');
  process.exit(2);
}
const started = Date.now();
const loadBefore = os
  .loadavg()
  .map((v) => v.toFixed(2))
  .join(', ');
const pinning = choosePinning();
const log = (line: string) => console.error(`[${((Date.now() - started) / 1000).toFixed(0).padStart(4)} s] ${line}`);
log(`sections: ${selected.join(', ')} on ${dbs.join(', ')}; ${settings.rounds} rounds × ${settings.seconds} s; ${pinning.note}`);

// `npm start`'s prestart: our server on a database runs the compiled dist/src/main.js.
execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });

let postgres = null as Promise<Postgres> | null;
const load = await LoadGenerator.start(pinning.load);
const ctx: BenchContext = {
  load,
  pinning,
  settings,
  quick,
  runs: (db) => dbs.includes(db),
  random: seededRandom(seed),
  postgres: () => (postgres ??= startPostgres()),
  log,
};

const sections: SectionResult[] = [];
let failure: unknown = null;
try {
  for (const name of selected) {
    log(`section ${name}`);
    sections.push(await (await SECTIONS[name]()).run(ctx));
  }
} catch (error) {
  failure = error;
} finally {
  await load.close();
  if (postgres) await (await postgres).stop();
}
if (failure) {
  console.error(failure);
  process.exit(1);
}

const git = (command: string) => execSync(`git ${command}`, { cwd: ROOT, encoding: 'utf8' }).trim();
const commit = git('rev-parse --short HEAD');
const cpu =
  /model name\s*:\s*(.+)/.exec(fs.existsSync('/proc/cpuinfo') ? fs.readFileSync('/proc/cpuinfo', 'utf8') : '')?.[1] ??
  os.cpus()[0]?.model ??
  'unknown CPU';
const meta: RunMeta = {
  commit,
  dirty: git('status --porcelain --untracked-files=no') !== '',
  date: new Date().toISOString().slice(0, 16).replace('T', ' ') + ' UTC',
  machine: `${os.availableParallelism()} × ${cpu}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, ${os.type()} ${os.release()}`,
  node: process.versions.node,
  postgres: postgres ? (await postgres).version : null,
  pinning: pinning.note,
  loadBefore,
  loadAfter: os
    .loadavg()
    .map((v) => v.toFixed(2))
    .join(', '),
  wallMinutes: (Date.now() - started) / 60_000,
  command: `npm run bench${
    process.argv.length > 2
      ? ` -- ${process.argv
          .slice(2)
          .filter((a) => a !== '--write-doc')
          .join(' ')}`
      : ''
  }`,
  rounds: settings.rounds,
  seconds: settings.seconds,
  warmupSeconds: settings.warmupSeconds,
  connections: settings.connections,
  seed,
  note: values.note ?? null,
  quick,
};
const summary = renderSummary(meta, sections);
const dir = path.join(ROOT, 'bench-results', `${new Date(started).toISOString().replace(/[:.]/g, '-')}-${commit}${quick ? '-quick' : ''}`);
fs.mkdirSync(dir, { recursive: true });
fs.writeFileSync(path.join(dir, 'raw.json'), JSON.stringify({ meta, settings, pinning, sections }, null, 2));
fs.writeFileSync(path.join(dir, 'summary.md'), summary);
if (values['write-doc']) {
  const doc = path.join(ROOT, 'docs/benchmarks.md');
  fs.writeFileSync(doc, withRun(fs.readFileSync(doc, 'utf8'), selected, summary));
}
console.log(summary);
log(`raw data and summary in ${path.relative(ROOT, dir)}`);
