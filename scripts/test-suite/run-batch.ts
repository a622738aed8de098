/**
 * Runs several test files in one process (batch.ts) and gives each its own result, as if it had
 * run alone: its TAP (the output up to its end marker, numbered from 1 again), its stderr, its wall
 * time and its CPU seconds. What the process spends beyond its files (starting Node, loading tap
 * and the application's modules once) is shared evenly among them in the ledger.
 *
 * When the process ends early (a crash, the time-out), the file it was running fails with what it
 * printed, and each file it did not reach fails with "not run".
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { END_OF_FILE } from './batch-marker.ts';
import { clockTicks } from './cpu.ts';
import { countTap, runFile, type FileResult } from './run-file.ts';

interface RunBatchOptions {
  /** The compiled batch.ts. */
  batchModule: string;
  files: { file: string; module: string }[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  timeoutS: number;
}

interface FileReport {
  file: string;
  wallMs: number;
  cpuSeconds: number;
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** `text` cut after each line that `endLine(file)` matches, in the files' order; the rest after the last. */
function splitAt(text: string, files: string[], endLine: (file: string) => RegExp): { parts: (string | undefined)[]; rest: string } {
  const parts: (string | undefined)[] = [];
  let rest = text;
  for (const file of files) {
    const match = endLine(file).exec(rest);
    if (!match) {
      parts.push(undefined);
      continue;
    }
    const end = match.index + match[0].length;
    parts.push(rest.slice(0, end));
    rest = rest.slice(end);
  }
  return { parts, rest };
}

/** One file's part of the batch's TAP with its root test points numbered from 1, as if it had run alone. */
function numbered(part: string): string {
  let n = 0;
  return part.replace(/^(not ok|ok) \d+\b/gm, (_, status: string) => `${status} ${++n}`);
}

/** A part as a TAP document of its own: a version line and a plan. */
function asDocument(part: string): string {
  const points = part.match(/^(?:not ok|ok) \d+\b/gm)?.length ?? 0;
  return `TAP version 14\n${part.replace(/\n*$/, '\n')}1..${points}\n`;
}

export async function runBatch({ batchModule, files, cwd, env, timeoutS }: RunBatchOptions): Promise<FileResult[]> {
  const reportFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'test-batch-')), 'report.jsonl');
  const whole = await runFile({
    module: batchModule,
    cwd,
    env: { ...env, TEST_BATCH: JSON.stringify(files), TEST_BATCH_REPORT: reportFile, TEST_CLOCK_TICKS: String(clockTicks()) },
    timeoutS,
  });
  const reports = new Map<string, FileReport>();
  if (fs.existsSync(reportFile)) {
    for (const line of fs.readFileSync(reportFile, 'utf8').split('\n').filter(Boolean)) {
      const report = JSON.parse(line) as FileReport;
      reports.set(report.file, report);
    }
  }
  fs.rmSync(path.dirname(reportFile), { recursive: true, force: true });

  const names = files.map((f) => f.file);
  const stdout = splitAt(whole.stdout, names, (file) => new RegExp(`^(?:not )?ok \\d+ - ${escape(END_OF_FILE + file)}(?: #.*)?\\n`, 'm'));
  const stderr = splitAt(whole.stderr, names, (file) => new RegExp(`^# ${escape(END_OF_FILE + file)}\\n`, 'm'));
  const measured = [...reports.values()];
  const overheadCpu = Math.max(0, whole.cpuSeconds - measured.reduce((n, r) => n + r.cpuSeconds, 0)) / files.length;
  const overheadMs = Math.max(0, whole.ms - measured.reduce((n, r) => n + r.wallMs, 0)) / files.length;
  const firstMissing = names.findIndex((name) => !reports.has(name));

  const parts = names.map((file, i) => {
    const part = stdout.parts[i];
    if (part === undefined || !reports.has(file)) return undefined;
    // The end marker counts only when something failed in it (a teardown, a load error).
    const emptyMarker = new RegExp(`^# Subtest: ${escape(END_OF_FILE + file)}\\n {4}1\\.\\.0\\nok \\d+ - .*\\n(?:\\n)?$`, 'm');
    const own = numbered(part.replace(/^TAP version \d+\n/, '').replace(emptyMarker, ''));
    return { own, counts: countTap(asDocument(own)) };
  });
  // A process that failed with every file clean failed after the last one (its exit, a teardown).
  const unexplained = !whole.ok && parts.every((p) => p && p.counts.fail === 0);

  return names.map((file, i) => {
    const report = reports.get(file);
    const parsed = parts[i];
    if (report && parsed) {
      const { own, counts } = parsed;
      const exitedBadly = unexplained && i === names.length - 1;
      const ok = counts.parsedOk && counts.fail === 0 && !exitedBadly;
      return {
        pass: counts.pass,
        fail: ok ? 0 : Math.max(1, counts.fail),
        skip: counts.skip,
        todo: counts.todo,
        ok,
        ms: report.wallMs + overheadMs,
        cpuSeconds: report.cpuSeconds + overheadCpu,
        stdout: own,
        stderr: (stderr.parts[i] ?? '').replace(`# ${END_OF_FILE}${file}\n`, '') + (i === names.length - 1 ? stderr.rest : ''),
        failures: exitedBadly ? [`the process failed after the file: ${whole.failures.join('; ')}`] : counts.failures,
        timedOut: false,
      };
    }
    // The file the process was running when it ended gets what was printed after the last finished one.
    const running = i === firstMissing;
    const counts = running ? countTap(asDocument(numbered(stdout.rest))) : { pass: 0, skip: 0, todo: 0, failures: [] };
    return {
      pass: counts.pass,
      fail: Math.max(1, running ? (counts.failures.length ?? 0) : 1),
      skip: counts.skip,
      todo: counts.todo,
      ok: false,
      ms: running ? whole.ms - measured.reduce((n, r) => n + r.wallMs, 0) : 0,
      cpuSeconds: running ? Math.max(0, whole.cpuSeconds - measured.reduce((n, r) => n + r.cpuSeconds, 0)) : 0,
      stdout: running ? numbered(stdout.rest) : '',
      stderr: running ? stderr.rest : '',
      failures: running
        ? [...new Set([...counts.failures, ...whole.failures])]
        : [`not run: the batch process ended before it (${names[firstMissing]})`],
      timedOut: running && whole.timedOut,
    };
  });
}
