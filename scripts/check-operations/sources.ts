/**
 * The operation documents of a consumer's project: files named by glob patterns (the shell may
 * leave `'src/**\/*.tsx'` unexpanded, and Node 20 has no fs.glob), and the GraphQL text in them:
 * a whole `.graphql`/`.gql` file, or each template literal passed to `graphql(` / `gql(` (the
 * client preset's function) or tagged `gql` / `graphql` / `/* GraphQL *\/` in a script.
 */
import fs from 'node:fs';
import path from 'node:path';

/** A GraphQL text and where it starts in its file (1-based), to report positions in the file. */
export interface DocumentText {
  file: string;
  body: string;
  line: number;
  column: number;
}

function globRegExp(pattern: string): RegExp {
  let out = '';
  let braces = 0;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (pattern.startsWith('**/', i)) {
      out += '(?:.*/)?';
      i += 2;
    } else if (pattern.startsWith('**', i)) {
      out += '.*';
      i += 1;
    } else if (c === '*') out += '[^/]*';
    else if (c === '?') out += '[^/]';
    else if (c === '{') {
      braces++;
      out += '(?:';
    } else if (c === '}' && braces > 0) {
      braces--;
      out += ')';
    } else if (c === ',' && braces > 0) out += '|';
    else out += c.replace(/[.+^$()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${out}$`);
}

function walk(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    // Dependencies and hidden folders hold no operations of the project's own.
    if (entry.isDirectory()) return entry.name === 'node_modules' || entry.name.startsWith('.') ? [] : walk(full);
    return entry.isFile() ? [full] : [];
  });
}

/** Files matching the patterns, relative to `cwd`, sorted; a `!pattern` excludes (as in codegen.ts). */
export function expandPatterns(patterns: readonly string[], cwd: string): string[] {
  const found = new Set<string>();
  const excluded = patterns.filter((p) => p.startsWith('!')).map((p) => globRegExp(path.posix.normalize(p.slice(1))));
  for (const pattern of patterns.filter((p) => !p.startsWith('!'))) {
    const normal = path.posix.normalize(pattern.split(path.sep).join('/'));
    if (!/[*?{]/.test(normal)) {
      found.add(normal);
      continue;
    }
    // Walk only below the pattern's fixed leading folders.
    const fixed = normal.split('/');
    const base =
      fixed
        .slice(
          0,
          fixed.findIndex((s) => /[*?{]/.test(s)),
        )
        .join('/') || '.';
    const re = globRegExp(normal);
    for (const file of walk(path.resolve(cwd, base))) {
      // An absolute pattern matches absolute paths; a relative one, paths from `cwd`.
      const rel = (path.isAbsolute(normal) ? file : path.relative(cwd, file)).split(path.sep).join('/');
      if (re.test(rel)) found.add(rel);
    }
  }
  return [...found].filter((f) => !excluded.some((re) => re.test(f))).sort();
}

/** Line and column (1-based) of `offset` in `text`. */
function position(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset).split('\n');
  return { line: before.length, column: before.at(-1)!.length + 1 };
}

/**
 * `graphql(` or `gql(` or a `gql`/`graphql` tag, not part of a path or member (the end of a template
 * `${base}/graphql` is no tag), or a `/* GraphQL *\/` comment, before a backtick.
 */
const TEMPLATE_START = /(?<![\w$./-])(?:graphql|gql)\s*(?:\(\s*)?`|\/\*\s*GraphQL\s*\*\/\s*`/g;
/** What a GraphQL document starts with, after comments: anything else in a template is not one. */
const GRAPHQL_START = /^(?:\s|#.*)*(?:query|mutation|subscription|fragment|\{)/;

/** The GraphQL texts of one file. A template with `${…}` is skipped: its text is not known statically. */
export function documentTexts(file: string, text: string): DocumentText[] {
  if (/\.(graphql|gql)$/.test(file)) return [{ file, body: text, line: 1, column: 1 }];
  const out: DocumentText[] = [];
  for (const match of text.matchAll(TEMPLATE_START)) {
    const start = match.index + match[0].length;
    let end = start;
    while (end < text.length && text[end] !== '`') end += text[end] === '\\' ? 2 : 1;
    const body = text.slice(start, end);
    if (!body.includes('${') && GRAPHQL_START.test(body)) out.push({ file, body: body.replace(/\\`/g, '`'), ...position(text, start) });
  }
  return out;
}
