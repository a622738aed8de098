/**
 * After `npm run generate`: every file the type checker now rejects, one line each with its first
 * error, so a spec change names all the code it leaves to update (a fixture typed by a changed
 * schema, an event's payload), not only what the implementation check knows how to find
 * (implementation-check.ts). It is the project's own `tsc -p tsconfig.json` (scripts/tsc.ts), on one
 * thread.
 *
 * Incremental: the compiler's state is kept between runs (in the system's temp folder, one file per
 * project folder), so after the first run a small change checks only the files it affects.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { TSC, typecheckStateFile } from '../tsc.ts';

interface Diagnostic {
  /** As tsc prints it: relative to the project root, with `/`; empty for an error of no file. */
  file: string;
  at: string;
  /** The message's lines: the first says what is wrong, each further one more precisely why. */
  lines: string[];
}

/** The errors of `tsc --pretty false`: `file(line,col): error TSn: message`, a chained message's further lines indented. */
function parse(output: string): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  for (const line of output.split('\n')) {
    const located = /^(.+?)\((\d+),(\d+)\): error TS\d+: (.*)$/.exec(line);
    const global = /^error TS\d+: (.*)$/.exec(line);
    if (located) diagnostics.push({ file: located[1]!, at: `${located[2]}:${located[3]}`, lines: [located[4]!] });
    else if (global) diagnostics.push({ file: '', at: '', lines: [global[1]!] });
    else if (/^\s+\S/.test(line) && diagnostics.length) diagnostics.at(-1)!.lines.push(line.trim());
  }
  return diagnostics;
}

const clip = (text: string, length: number) => (text.length > length ? `${text.slice(0, length)}…` : text);

/**
 * `file:line:column: message`. The compiler spells out both types in full, so each line is cut:
 * the first line (what is wrong) and, for a chained message, the last (the most precise cause, such
 * as `Property 'pingCount' is missing in type …`).
 */
function describe({ file, at, lines }: Diagnostic): string {
  const text = lines.length > 1 ? `${clip(lines[0]!, 150)} … ${clip(lines.at(-1)!, 150)}` : clip(lines[0]!, 300);
  return file ? `${file}:${at}: ${text}` : text;
}

/**
 * The project's type errors, the first of each file with the number of the others: one line a
 * file, in path order. Empty when the project compiles (or has no tsconfig.json).
 */
export function rejectedFiles(root: string): string[] {
  if (!fs.existsSync(path.join(root, 'tsconfig.json'))) return [];
  const state = typecheckStateFile(root);
  fs.mkdirSync(path.dirname(state), { recursive: true });
  // One thread: tsc's parallel checkers spend about half as much CPU again for the same list, and on
  // the two-core budget machine finish no sooner (a cold run 9–10 CPU-s against 16–18).
  const incremental = ['--incremental', '--tsBuildInfoFile', state];
  const args = [TSC, '-p', 'tsconfig.json', '--noEmit', '--pretty', 'false', '--singleThreaded', ...incremental];
  const result = spawnSync(process.execPath, args, { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (result.error) throw result.error;
  const byFile = new Map<string, Diagnostic[]>();
  for (const diagnostic of parse(result.stdout)) byFile.set(diagnostic.file, [...(byFile.get(diagnostic.file) ?? []), diagnostic]);
  if (result.status !== 0 && !byFile.size)
    throw new Error(`tsc -p tsconfig.json failed without an error it could name:\n${result.stdout}${result.stderr}`);
  return [...byFile.keys()].sort().map((file) => {
    const [first, ...others] = byFile.get(file)!;
    return `${describe(first!)}${others.length ? ` (and ${others.length} more)` : ''}`;
  });
}
