/**
 * `npm run spec:diff [base] [-- [--accept-breaking] [--format text|json|markdown]]`: what the specs'
 * changes since a git ref (default HEAD; HEAD~1 in `npm test`) do to clients, one line per change in
 * the manner of oasdiff's changelog: level, file, location, what changed, old → new.
 *
 * The SDL is compared with @graphql-inspector/core, each OpenAPI document (bundled, as published)
 * with api-smart-diff, which reads OpenAPI 3.1 schemas as JSON Schema 2020-12; descriptions and
 * examples are not changes. Each change is an `error` (breaking), a `warning` (safe for old clients
 * but may change what they see) or `info`. Over the libraries' verdicts, this file decides:
 *
 * - narrowing what a client may send is an error, widening it is info: in a request (parameters and
 *   bodies; for a webhook, the receiver's response) `maxLength`/`maxItems`/`maximum` lowered or
 *   added, `minLength`/`minItems`/`minimum` raised or added, an `enum` value removed, a `pattern`
 *   changed or added, a property becoming required; on the SDL, the same for a `@constraint` on an
 *   input field or an argument (graphql-inspector sees those only as a directive argument removed
 *   and added);
 * - in what a client receives (responses; a webhook's payload) the converse: an `enum` value added or
 *   a bound widened is a warning, a narrowing is info; a property removed is an error if it was
 *   required, else a warning, and one no longer required is an error (api-smart-diff called a GET
 *   response's property removal non-breaking and a POST's breaking); anything else keeps the
 *   library's verdict.
 *
 * A change api-smart-diff reports both where a component is defined and where an operation uses it
 * is reported once, where it is used (`components/schemas/…` is not client-visible by itself); the
 * same line is never printed twice (the JSON and XML bodies of one response are one location).
 *
 * Exits 1 on a breaking change unless it is marked: `--accept-breaking`, or a line starting with
 * `BREAKING CHANGE:` in the message of a commit after the base (the Conventional Commits footer),
 * saying what clients must do.
 */
import { execFileSync } from 'node:child_process';
import { parseArgs } from 'node:util';
import { SPEC_PATHS, type Level, type SpecChange } from './spec-diff/change.ts';

export type { Level, SpecChange };

/** Whether the working tree's specs are byte for byte those of `ref` (no file changed, added or removed). */
function specsUnchangedSince(root: string, ref: string): boolean {
  const git = (...args: string[]) => execFileSync('git', args, { cwd: root, encoding: 'utf8' });
  try {
    git('diff', '--quiet', ref, '--', ...SPEC_PATHS);
  } catch {
    return false;
  }
  return git('ls-files', '--others', '--exclude-standard', '--', ...SPEC_PATHS).trim() === '';
}

/** Every change of the specs in `root` (the working tree) since `base`: errors first, each once. */
export async function specDiff(root: string, base: string): Promise<SpecChange[]> {
  // The same files make the same documents: most commits touch no spec, and loading the comparison's
  // libraries, bundling and comparing every document twice is most of what the command costs.
  if (specsUnchangedSince(root, base)) return [];
  const { compareSpecs } = await import('./spec-diff/compare.ts');
  return compareSpecs(root, base);
}

/** `maxLength decreased: 200 → 20`; the change alone when it has no value on either side. */
function described(c: SpecChange): string {
  return c.old === null && c.new === null ? c.change : `${c.change}: ${c.old ?? '(none)'} → ${c.new ?? '(none)'}`;
}

/** The changes as `--format` prints them: text (a line each), json (an array), markdown (a table). */
export function formatChanges(changes: readonly SpecChange[], format: 'text' | 'json' | 'markdown'): string {
  if (format === 'json') return JSON.stringify(changes, null, 2);
  if (format === 'markdown') {
    const cell = (v: string | null) => {
      if (v === null || v === '') return '';
      const text = v.replaceAll('\n', ' ').replaceAll('|', '\\|');
      return text.includes('`') ? text : `\`${text}\``;
    };
    const rows = changes.map((c) =>
      [c.level, cell(c.file), cell(c.location), c.change.replaceAll('|', '\\|'), cell(c.old), cell(c.new)].join(' | '),
    );
    return ['| Level | File | Location | Change | Old | New |', '|---|---|---|---|---|---|', ...rows.map((r) => `| ${r} |`)].join('\n');
  }
  const fileWidth = Math.max(0, ...changes.map((c) => c.file.length));
  return changes.map((c) => `${c.level.padEnd(7)}  ${c.file.padEnd(fileWidth)}  ${c.location}  ${described(c)}`).join('\n');
}

/** The commits after `base` carry a `BREAKING CHANGE:` footer. */
export function breakingChangeMarked(root: string, base: string): boolean {
  const log = execFileSync('git', ['log', '--format=%B', `${base}..HEAD`], { cwd: root, encoding: 'utf8' });
  return /^BREAKING[ -]CHANGE:/m.test(log);
}

/** Where the command writes: the process's streams, or a test's. */
interface Output {
  out: (line: string) => void;
  err: (line: string) => void;
}

/**
 * The command, `npm run spec:diff -- [base] [--accept-breaking] [--format text|json|markdown]` in
 * `root`: what it prints, and its exit code (1 on an unmarked breaking change, 2 on a bad option).
 */
export async function specDiffCommand(root: string, args: string[], io: Output): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: { 'accept-breaking': { type: 'boolean' }, format: { type: 'string', default: 'text' } },
    allowPositionals: true,
  });
  const format = values.format;
  if (format !== 'text' && format !== 'json' && format !== 'markdown') {
    io.err(`spec:diff: --format is text, json or markdown, not ${format}`);
    return 2;
  }
  // The verdict goes with the text and the markdown (a CI comment); beside JSON, to stderr.
  const say = format === 'json' ? io.err : io.out;
  const base = positionals[0] ?? 'HEAD';
  try {
    execFileSync('git', ['rev-parse', '--verify', '--quiet', `${base}^{commit}`], { cwd: root, stdio: 'ignore' });
  } catch {
    say(`spec:diff: no commit ${base} to compare with (a shallow clone or the first commit); nothing compared`);
    if (format === 'json') io.out('[]');
    return 0;
  }
  const changes = await specDiff(root, base);
  if (changes.length || format === 'json') io.out(formatChanges(changes, format));
  const count = (level: Level) => changes.filter((c) => c.level === level).length;
  const breaking = count('error');
  if (!changes.length) say(`spec:diff: no client-visible change since ${base}`);
  else
    say(
      `${format === 'markdown' ? '\n' : ''}spec:diff: ${breaking} error, ${count('warning')} warning, ${count('info')} info since ${base}`,
    );
  if (!breaking) return 0;
  const marked = values['accept-breaking'] || breakingChangeMarked(root, base);
  say(
    marked
      ? `spec:diff: ${breaking} breaking change(s) since ${base}, marked as intended`
      : `spec:diff: ${breaking} breaking change(s) since ${base}. If intended, say so in the commit message with a line\n` +
          '"BREAKING CHANGE: <what clients must do>" (or pass --accept-breaking); otherwise make the change additive.',
  );
  return marked ? 0 : 1;
}

if (process.argv[1]?.endsWith('scripts/spec-diff.ts')) {
  process.exitCode = await specDiffCommand(process.cwd(), process.argv.slice(2), { out: console.log, err: console.error });
}
