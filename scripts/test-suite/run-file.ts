/**
 * One test file in its own Node process, from the compiled tree: node-tap's test object writes TAP
 * to stdout when a file runs on its own, which is parsed here with tap-parser and counted as tap's
 * own runner counts (every assertion at every depth that is not a subtest's closing line).
 *
 * tap's runner is not used: it loads every test process with module hooks of its own (process
 * tracking for coverage, mocking), which cost more than half a second per process on this code.
 */
import { Parser } from 'tap-parser';
import { spawnMeasured, treeCpuSeconds } from './cpu.ts';

/**
 * WebAssembly compiled by the baseline compiler only: a test process runs PGlite for seconds, too
 * short for V8's optimizing tier to pay for compiling its 10 MB module in the background, which cost
 * a quarter of each process's CPU time (docs/decisions.md).
 */
const V8_FLAGS = ['--liftoff-only'];

export interface FileResult {
  pass: number;
  fail: number;
  skip: number;
  todo: number;
  /** Whether the file passed: its TAP is ok and its process exited with 0. */
  ok: boolean;
  /** Wall time of the process, start to exit. */
  ms: number;
  /** CPU seconds (user + system) of the file's whole process tree: its servers, tsc, npm (cpu.ts). */
  cpuSeconds: number;
  /** What the file wrote, stdout and then stderr. */
  stdout: string;
  stderr: string;
  /** Names of the failed assertions, with their subtests' names before them. */
  failures: string[];
  timedOut: boolean;
}

interface RunFileOptions {
  /** The compiled module (absolute path). */
  module: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** tap's own time-out of the file's root test, in seconds; the process is killed 30 s later. */
  timeoutS: number;
}

/** Counts a file's TAP output; exported for the runner's own tests. */
/**
 * The counts of one file's TAP output, as tap counts them: passed, failed, skipped and `todo` (TAP's
 * own directive for a test marked as not expected to pass yet), and each failure named by its subtests.
 */
export function countTap(stdout: string): Pick<FileResult, 'pass' | 'fail' | 'skip' | 'todo' | 'failures'> & { parsedOk: boolean } {
  const counts = { pass: 0, fail: 0, skip: 0, todo: 0, failures: [] as string[], parsedOk: false };
  const parser = new Parser();
  const names: string[] = [];
  const follow = (p: Parser, depth: number) => {
    p.on('child', (child: Parser) => {
      child.on('comment', (c: string) => {
        const subtest = /^# Subtest: (.*)$/.exec(c.trim());
        if (subtest) names[depth] = subtest[1] ?? '';
      });
      follow(child, depth + 1);
    });
    p.on('assert', (a: { ok: boolean; name?: string; todo?: unknown; skip?: unknown }) => {
      if (!a.ok && !a.todo && !a.skip) counts.failures.push([...names.slice(0, depth), a.name ?? '(unnamed)'].join(' > '));
    });
  };
  parser.on('comment', (c: string) => {
    const subtest = /^# Subtest: (.*)$/.exec(c.trim());
    if (subtest) names[0] = subtest[1] ?? '';
  });
  follow(parser, 0);
  parser.on('pass', () => counts.pass++);
  parser.on('fail', () => counts.fail++);
  parser.on('skip', () => counts.skip++);
  parser.on('todo', () => counts.todo++);
  parser.on('complete', (results: { ok: boolean }) => (counts.parsedOk = results.ok));
  parser.end(stdout);
  // A subtest's closing `not ok` is reported with the failures inside it, and on its own only when it
  // holds none (a time-out, a throw).
  counts.failures = counts.failures.filter((f, i, all) => !all.some((other, j) => j !== i && other.startsWith(`${f} > `)));
  return counts;
}

export function runFile({ module, cwd, env, timeoutS }: RunFileOptions): Promise<FileResult> {
  const started = performance.now();
  return new Promise((resolve) => {
    const { child, cpuSeconds, killTree } = spawnMeasured(process.execPath, ['--enable-source-maps', ...V8_FLAGS, module], {
      cwd,
      env: { ...env, TAP_TIMEOUT: String(timeoutS) },
    });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout!.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr!.on('data', (chunk: Buffer) => stderr.push(chunk));
    let timedOut = false;
    // A killed tree cannot report its CPU at exit: it is read just before the kill.
    let cpuAtKill = 0;
    const killer = setTimeout(
      () => {
        timedOut = true;
        if (child.pid) cpuAtKill = treeCpuSeconds(child.pid);
        killTree();
      },
      (timeoutS + 30) * 1000,
    );
    child.on(
      'close',
      (code) =>
        void cpuSeconds.then((measured) => {
          clearTimeout(killer);
          const cpu = measured ?? cpuAtKill;
          const out = Buffer.concat(stdout).toString();
          const counts = countTap(out);
          const ok = code === 0 && counts.parsedOk && counts.fail === 0 && !timedOut;
          resolve({
            pass: counts.pass,
            // A file that failed without a failed assertion (a crash, a time-out) counts as one failure.
            fail: ok ? 0 : Math.max(1, counts.fail),
            skip: counts.skip,
            todo: counts.todo,
            ok,
            ms: performance.now() - started,
            cpuSeconds: cpu,
            stdout: out,
            stderr: Buffer.concat(stderr).toString(),
            failures: timedOut
              ? [...counts.failures, `killed after ${timeoutS + 30} s`]
              : counts.failures.length || ok
                ? counts.failures
                : [`exited with ${String(code)}`],
            timedOut,
          });
        }),
    );
  });
}
