/**
 * What the suite prints: each file's TAP as tap's runner frames it (a subtest per file), and at the
 * end the timing report (each run's wall time and its ten slowest files) and the contract coverage.
 */
import os from 'node:os';
import type { DocumentCoverage } from '../../test/helpers/contract-coverage.ts';
import type { FileResult } from './run-file.ts';

export interface FileRun {
  file: string;
  run: string;
  result: FileResult;
  /** Milliseconds from the suite's start to the file's start and end. */
  startedAt: number;
  endedAt: number;
}

const indent = (text: string) =>
  text
    .replace(/\n$/, '')
    .split('\n')
    .map((line) => (line ? `    ${line}` : line))
    .join('\n');

/** The file's block in the log: its TAP indented under a `# Subtest:` line, as tap's runner writes it. */
export function fileBlock(n: number, { file, run, result }: FileRun): string {
  const name = `${file} (${run})`;
  const stderr = result.stderr.trim() ? `\n${indent(`# stderr:\n${result.stderr.replace(/^/gm, '# ')}`)}` : '';
  const failures = result.failures.length ? `\n${indent(result.failures.map((f) => `# failed: ${f}`).join('\n'))}` : '';
  return `# Subtest: ${name}\n${indent(result.stdout)}${stderr}${failures}\n${result.ok ? 'ok' : 'not ok'} ${n} - ${name} # time=${result.ms.toFixed(0)}ms\n`;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const clock = (ms: number) => `${Math.floor(ms / 60000)}m${String(Math.round((ms % 60000) / 1000)).padStart(2, '0')}s`;

/**
 * The closing list of failures, each named with its file and database; a file that drew random values
 * has its seed and replay command (printed at its start, test/helpers/random.ts) repeated under it,
 * so that the end of a long log is enough to replay it.
 */
export function failedReport(failed: FileRun[]): string {
  const lines = ['failed:'];
  for (const { file, run, result } of failed) {
    for (const failure of result.failures) lines.push(`  ${file} (${run}): ${failure}`);
    const seed = /^# (random seed \d+.*)$/m.exec(result.stdout)?.[1];
    if (seed) lines.push(`    ${seed}`);
  }
  return lines.join('\n');
}

/**
 * Per run: wall time (its first file's start to its last file's end), files, counts, and the ten
 * slowest files (process start to exit, start-up included: that is what a file costs the suite).
 */
export function timingReport(runs: string[], done: FileRun[], wallMs: number, jobs: number): string {
  const lines = [
    `\ntiming: whole suite ${clock(wallMs)} with ${jobs} files at a time; load average ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  ];
  for (const run of runs) {
    const files = done.filter((d) => d.run === run);
    if (!files.length) continue;
    const wall = Math.max(...files.map((f) => f.endedAt)) - Math.min(...files.map((f) => f.startedAt));
    const busy = files.reduce((n, f) => n + f.result.ms, 0);
    lines.push(`  ${run}: ${clock(wall)} wall, ${files.length} files, ${seconds(busy)} in test processes; slowest:`);
    for (const f of [...files].sort((a, b) => b.result.ms - a.result.ms).slice(0, 10)) {
      lines.push(`    ${seconds(f.result.ms).padStart(8)}  ${f.file}`);
    }
  }
  return lines.join('\n');
}

interface RunCounts {
  pass: number;
  fail: number;
  skip: number;
  todo: number;
}

export function countsOf(results: FileResult[]): RunCounts {
  return results.reduce((n, r) => ({ pass: n.pass + r.pass, fail: n.fail + r.fail, skip: n.skip + r.skip, todo: n.todo + r.todo }), {
    pass: 0,
    fail: 0,
    skip: 0,
    todo: 0,
  });
}

/**
 * The contract coverage, a line per OpenAPI document. A run of some files (`whole` false) lists the
 * documents they called: a row of 0 % for every other document would say nothing about them.
 */
export function coverageReport(coverage: DocumentCoverage[], whole: boolean): string {
  const reported = whole ? coverage : coverage.filter((c) => c.operationsExercised > 0);
  const percent = (n: number, of: number) => `${of ? Math.floor((100 * n) / of) : 100} %`;
  const lines = ['', 'contract coverage (responses validated against their OpenAPI document):'];
  for (const c of reported) {
    lines.push(
      `  ${c.document.padEnd(9)} operations ${c.operationsExercised}/${c.operations} (${percent(c.operationsExercised, c.operations)}), ` +
        `documented statuses ${c.statusesExercised}/${c.statuses} (${percent(c.statusesExercised, c.statuses)})` +
        (c.missingOperations.length ? `; not exercised: ${c.missingOperations.join(', ')}` : ''),
    );
  }
  if (reported.length < coverage.length)
    lines.push(`  (${coverage.length - reported.length} document(s) these files do not call left out)`);
  return lines.join('\n');
}
