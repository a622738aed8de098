/**
 * Several test files in one process, one after another (run-batch.ts starts it): each file's tests
 * run as they would in a process of their own, but the process, tap and the application's modules
 * are loaded once, which was a third of what a small file cost the suite (docs/decisions.md).
 *
 * A file ends when every test it queued has run: a marker test, `test-suite: end of <file>`, queued
 * after them, runs the file's root-level teardowns (its shared server, receivers, scratch folders:
 * tap would run them at the process's end), writes the file's wall time and CPU to the report file
 * and only then is the next file imported. The runner splits the output at the markers.
 *
 * Environment: TEST_BATCH, a JSON list of `{ file, module }` (the name the suite gives the file and
 * its compiled module), and TEST_BATCH_REPORT, a file that gets one JSON line per finished file.
 */
import fs from 'node:fs';
import t from 'tap';
import { END_OF_FILE } from './batch-marker.ts';

/** An error's first line, for an assertion's name; its stack goes to stderr. */
function firstLine(error: unknown): string {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  return (error instanceof Error ? `${error.name}: ${error.message}` : String(error)).split('\n')[0]!;
}

interface BatchFile {
  file: string;
  module: string;
}

/** CPU seconds of this process and of the children it has reaped (their servers, tsc, npm). */
function cpuSeconds(): number {
  const own = process.cpuUsage();
  const fields = fs.readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ');
  const children = (Number(fields[13]) + Number(fields[14])) / Number(process.env.TEST_CLOCK_TICKS ?? 100);
  return (own.user + own.system) / 1e6 + children;
}

const files = JSON.parse(process.env.TEST_BATCH ?? '[]') as BatchFile[];
const report = process.env.TEST_BATCH_REPORT;
if (!files.length || !report) throw new Error('TEST_BATCH and TEST_BATCH_REPORT are set by scripts/test-suite/run-batch.ts');

// Root-level teardowns belong to the file that registered them, run when that file ends.
const teardowns: (() => unknown)[] = [];
(t as unknown as { teardown: (fn: () => unknown) => void }).teardown = (fn) => void teardowns.push(fn);

for (const { file, module } of files) {
  process.env.TEST_FILE = file;
  const started = performance.now();
  const cpuBefore = cpuSeconds();
  let loadError: unknown;
  try {
    await import(module);
  } catch (error) {
    loadError = error;
  }
  await new Promise<void>((resolve) => {
    void t.test(`${END_OF_FILE}${file}`, async (end) => {
      try {
        if (loadError) end.fail(`the file failed outside its tests: ${firstLine(loadError)}`);
        for (const teardown of teardowns.splice(0).reverse()) {
          try {
            await teardown();
          } catch (error) {
            end.fail(`a teardown of the file failed: ${firstLine(error)}`);
          }
        }
        process.stderr.write(`# ${END_OF_FILE}${file}\n`);
        const line = { file, wallMs: Math.round(performance.now() - started), cpuSeconds: cpuSeconds() - cpuBefore };
        fs.appendFileSync(report, `${JSON.stringify(line)}\n`);
      } finally {
        resolve();
      }
    });
  });
}
