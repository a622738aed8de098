/**
 * The README and docs/ say only what exists: every relative link leads to a file of the repository
 * (and to a heading of it when it names one, by GitHub's anchor rule), every `npm run <name>` they
 * mention is a script of package.json, and the README stays short enough to read first (issue 43).
 */
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';

const root = path.resolve(import.meta.dirname, '../..');
const README_MAX_LINES = 160;

const documents = [
  'README.md',
  ...fs
    .readdirSync(path.join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`),
];
const text = (relative: string) => fs.readFileSync(path.join(root, relative), 'utf8');

/** The lines outside fenced code blocks (``` or ~~~), where headings and links are Markdown. */
function prose(markdown: string): string[] {
  let fence: string | undefined;
  const lines: string[] = [];
  for (const line of markdown.split('\n')) {
    const marker = /^\s{0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker && (!fence || (marker[0] === fence[0] && marker.length >= fence.length))) {
      fence = fence ? undefined : marker;
      continue;
    }
    if (!fence) lines.push(line);
  }
  return lines;
}

/** GitHub's anchor for a heading: its text as rendered, lower-cased, punctuation dropped, spaces as hyphens. */
function slug(heading: string): string {
  const rendered = heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/`/g, '')
    .trim();
  return rendered
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** Every anchor a Markdown file offers, numbered as GitHub numbers repeated headings (-1, -2, …). */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of prose(markdown)) {
    const heading = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const base = slug(heading);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/** The targets of the inline links `[text](target)` outside code spans and fenced blocks. */
function linksOf(markdown: string): string[] {
  const targets: string[] = [];
  for (const line of prose(markdown)) {
    const withoutCode = line.replace(/`[^`]*`/g, '');
    for (const match of withoutCode.matchAll(/\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) targets.push(match[1]!);
  }
  return targets;
}

/** Where a link leads, or why it leads nowhere. */
function brokenLink(from: string, target: string): string | undefined {
  if (/^[a-z][a-z\d+.-]*:/i.test(target)) return undefined; // http:, https:, mailto:
  const [file = '', fragment] = target.split('#', 2) as [string, string | undefined];
  if (file.startsWith('/')) return 'is not relative to the file';
  const resolved = file === '' ? path.join(root, from) : path.resolve(path.dirname(path.join(root, from)), decodeURI(file));
  if (!fs.existsSync(resolved)) return `leads to ${path.relative(root, resolved)}, which does not exist`;
  if (fragment === undefined || !resolved.endsWith('.md')) return undefined;
  if (!anchorsOf(fs.readFileSync(resolved, 'utf8')).has(decodeURIComponent(fragment))) {
    return `names #${fragment}, which is no heading of ${path.relative(root, resolved)}`;
  }
  return undefined;
}

t.test("GitHub's anchor rule, as the checks below apply it", async (t) => {
  t.equal(slug('Pagination (`GET /posts`, `GET /feed`, `openapi/posts.yaml`)'), 'pagination-get-posts-get-feed-openapipostsyaml');
  t.equal(slug('Workflow: edit a spec, generate, implement, test'), 'workflow-edit-a-spec-generate-implement-test');
  t.equal(slug('The look-ahead planner (`src/content/planner/`)'), 'the-look-ahead-planner-srccontentplanner');
  t.same([...anchorsOf('# A\n```\n# not a heading\n```\n## A\n')], ['a', 'a-1'], 'repeated headings are numbered; code is no heading');
  t.equal(brokenLink('README.md', 'docs/no-such-file.md'), 'leads to docs/no-such-file.md, which does not exist');
  t.match(brokenLink('README.md', 'docs/sdk.md#no-such-heading'), /names #no-such-heading, which is no heading of docs\/sdk\.md/);
});

t.test('every relative link in README.md and docs/*.md leads to a file and, with a #fragment, to its heading', async (t) => {
  const broken: string[] = [];
  let checked = 0;
  for (const document of documents) {
    for (const target of linksOf(text(document))) {
      checked++;
      const why = brokenLink(document, target);
      if (why) broken.push(`${document}: (${target}) ${why}`);
    }
  }
  t.ok(checked > 20, `${checked} links checked`);
  t.same(broken, [], 'no broken link');
});

t.test('every `npm run <name>` in README.md and docs/*.md is a script of package.json', async (t) => {
  const scripts = new Set(Object.keys((JSON.parse(text('package.json')) as { scripts: Record<string, string> }).scripts));
  const unknown: string[] = [];
  let checked = 0;
  for (const document of documents) {
    for (const match of text(document).matchAll(/npm run(?:\s+(?:--silent|-s))?\s+([A-Za-z\d][\w:.-]*)/g)) {
      checked++;
      const name = match[1]!.replace(/[.:]+$/, '');
      if (!scripts.has(name)) unknown.push(`${document}: npm run ${name}`);
    }
  }
  t.ok(checked > 50, `${checked} mentions checked`);
  t.same(unknown, [], 'no command that package.json lacks');
});

t.test(`README.md is at most ${README_MAX_LINES} lines`, async (t) => {
  const lines = text('README.md').trimEnd().split('\n').length;
  t.ok(lines <= README_MAX_LINES, `README.md has ${lines} lines; the reference belongs in docs/`);
});
