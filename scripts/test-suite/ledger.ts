/**
 * The suite's ledger: what each test file and each check cost in wall time and CPU seconds (user +
 * system of its whole process tree, cpu.ts), the run's total against its CPU budget, the heaviest
 * files, and which grew since the run it is compared with.
 *
 * Each run writes its figures to node_modules/.cache/schemaforge/ledger[-long].json (this checkout's
 * last run, never committed); the next run compares with that file, or on a fresh clone with
 * test/ledger[-long].json, the figures of the last fresh-clone run committed beside the tests
 * (`npm run test:suite -- --commit-ledger` copies a run's figures there). The same figures order
 * the next run: longest files first, so that no long file starts last and holds the suite up alone.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { root } from './selection.ts';

/** `npm test`'s CPU budget (issue 40): a 2-core machine's 10 minutes, less room for a slow day. */
const CPU_BUDGET_S = 1000;

interface LedgerEntry {
  wallMs: number;
  cpuSeconds: number;
}

/** Entries by `<run> <file>` (a test file on a database run) or `check <name>`. */
export type Ledger = Record<string, LedgerEntry>;

const localFile = (tier: string) => path.join(root, `node_modules/.cache/schemaforge/ledger${tier === 'long' ? '-long' : ''}.json`);
const committedFile = (tier: string) => path.join(root, `test/ledger${tier === 'long' ? '-long' : ''}.json`);

function read(file: string): Ledger | undefined {
  try {
    return (JSON.parse(fs.readFileSync(file, 'utf8')) as { entries: Ledger }).entries;
  } catch {
    return undefined;
  }
}

/** The ledger this run compares with: this checkout's last run, else the committed one. */
export function previousLedger(tier: string): { entries: Ledger; source: string } | undefined {
  for (const file of [localFile(tier), committedFile(tier)]) {
    const entries = read(file);
    if (entries) return { entries, source: path.relative(root, file) };
  }
  return undefined;
}

/** Adds `measured` to this checkout's ledger (a partial run keeps the other files' figures). */
export function saveLedger(tier: string, measured: Ledger, commit: boolean): void {
  const file = localFile(tier);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const entries = { ...read(file), ...measured };
  const text = JSON.stringify({ written: new Date().toISOString(), entries: sortedKeys(entries) }, null, 1) + '\n';
  fs.writeFileSync(`${file}.${process.pid}`, text);
  fs.renameSync(`${file}.${process.pid}`, file);
  if (commit)
    fs.writeFileSync(
      committedFile(tier),
      JSON.stringify({ written: new Date().toISOString(), entries: sortedKeys(measured) }, null, 1) + '\n',
    );
}

const sortedKeys = (entries: Ledger): Ledger => Object.fromEntries(Object.entries(entries).sort(([a], [b]) => a.localeCompare(b)));

interface LedgerRun {
  /** This run's entries, by the same keys as the ledger. */
  entries: Ledger;
  /** CPU seconds spent outside the entries: the shared PostgreSQL server, the runner (build, parsing). */
  shared: { name: string; cpuSeconds: number }[];
  wallMs: number;
  /** Whether the budget applies (a whole `npm test`). */
  budget: boolean;
  previous?: { entries: Ledger; source: string };
}

const s = (n: number) => n.toFixed(1);
const clock = (ms: number) => `${Math.floor(ms / 60000)}m${String(Math.round((ms % 60000) / 1000)).padStart(2, '0')}s`;

/** A file grew when it costs both 20 % and 5 CPU-seconds more than in the run compared with. */
function grew(now: LedgerEntry, before: LedgerEntry | undefined): boolean {
  return !!before && now.cpuSeconds - before.cpuSeconds >= 5 && now.cpuSeconds >= before.cpuSeconds * 1.2;
}

function change(now: LedgerEntry, before: LedgerEntry | undefined): string {
  if (!before) return 'new';
  const delta = now.cpuSeconds - before.cpuSeconds;
  const percent = before.cpuSeconds ? Math.round((100 * delta) / before.cpuSeconds) : 0;
  return `${delta >= 0 ? '+' : ''}${s(delta)} (${percent >= 0 ? '+' : ''}${percent} %)`;
}

/** The ledger's lines: totals, the ten heaviest, what grew, and the budget's verdict last. */
export function ledgerReport(run: LedgerRun): string {
  const entries = Object.entries(run.entries);
  const inEntries = entries.reduce((n, [, e]) => n + e.cpuSeconds, 0);
  const total = inEntries + run.shared.reduce((n, x) => n + x.cpuSeconds, 0);
  const checks = entries.filter(([key]) => key.startsWith('check ')).reduce((n, [, e]) => n + e.cpuSeconds, 0);
  const lines = [
    `\nledger: ${s(total)} CPU-s in ${clock(run.wallMs)} wall` +
      (run.budget ? ` (budget ${CPU_BUDGET_S} CPU-s: ${Math.round((100 * total) / CPU_BUDGET_S)} %)` : '') +
      `; load average ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    `  ${[
      ...(checks ? [`checks ${s(checks)}`] : []),
      `test files ${s(inEntries - checks)}`,
      ...run.shared.map((x) => `${x.name} ${s(x.cpuSeconds)}`),
    ].join(', ')} CPU-s`,
    ...(checks
      ? [
          `  checks: ${entries
            .filter(([key]) => key.startsWith('check '))
            .map(([key, e]) => `${key.slice('check '.length)} ${s(e.cpuSeconds)}`)
            .join(', ')}`,
        ]
      : []),
    `  the ten heaviest by CPU (CPU-s, wall, change since ${run.previous ? run.previous.source : 'no earlier run'}):`,
  ];
  const byCpu = entries.filter(([key]) => !key.startsWith('check ')).sort(([, a], [, b]) => b.cpuSeconds - a.cpuSeconds);
  for (const [key, e] of byCpu.slice(0, 10)) {
    lines.push(`    ${s(e.cpuSeconds).padStart(6)}  ${s(e.wallMs / 1000).padStart(6)} s  ${key}  ${change(e, run.previous?.entries[key])}`);
  }
  const grown = entries.filter(([key, e]) => grew(e, run.previous?.entries[key]));
  if (grown.length) {
    lines.push(`  grown since ${run.previous!.source} (by 20 % and 5 CPU-s or more):`);
    for (const [key, e] of grown) lines.push(`    ${key}: ${s(run.previous!.entries[key]!.cpuSeconds)} → ${s(e.cpuSeconds)} CPU-s`);
  }
  if (run.budget && total > CPU_BUDGET_S) {
    lines.push(
      `\n!!! OVER BUDGET: npm test used ${s(total)} CPU-s, ${s(total - CPU_BUDGET_S)} over its ${CPU_BUDGET_S}. ` +
        `Make the heaviest files above cheaper or move their long scenarios to npm run test:long (docs/testing.md, "The ledger"). !!!`,
    );
  }
  return lines.join('\n');
}
