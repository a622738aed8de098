/**
 * `npm run spec:diff` on scratch copies of the specs (a throw-away git repository): a removed field
 * and a narrowed enum are breaking, an added optional field is safe, on the SDL and on an OpenAPI
 * document alike; the command fails on an unmarked breaking change and passes once a commit carries
 * a `BREAKING CHANGE:` line. Narrowing what a client sends (a `@constraint` or an OpenAPI `maxLength`,
 * `minimum`, `enum`, `required`) is breaking, widening it is not; each change is one line with its
 * location and old → new, never twice; `--format json` and `--format markdown`.
 */
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import t, { type Test } from 'tap';
import { formatChanges, specDiff, specDiffCommand, type SpecChange } from '../../scripts/spec-diff.ts';

const root = path.resolve(import.meta.dirname, '../..');
const run = promisify(execFile);

function git(dir: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=test', '-c', 'user.email=test@example.com', ...args], { cwd: dir, encoding: 'utf8' });
}

/** Replaces `from` (which must occur once, inside the text after `within`) in `file`. */
function edit(dir: string, file: string, within: string, from: string, to: string): void {
  const full = path.join(dir, file);
  const text = fs.readFileSync(full, 'utf8');
  const start = text.indexOf(within);
  const at = text.indexOf(from, start);
  if (start < 0 || at < 0) throw new Error(`${file}: ${JSON.stringify(from)} not found after ${within}`);
  fs.writeFileSync(full, text.slice(0, at) + to + text.slice(at + from.length));
}

function scratchRepository(t: Test): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spec-diff-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  // Three documents are enough (rest-v2 shares rest-v1's enum; posts is untouched) and keep it quick.
  for (const entry of [
    'openapi/rest-v1.yaml',
    'openapi/rest-v2.yaml',
    'openapi/posts.yaml',
    'openapi/components',
    'schema',
    'codegen.ts',
  ]) {
    fs.cpSync(path.join(root, entry), path.join(dir, entry), { recursive: true });
  }
  git(dir, 'init', '-q');
  git(dir, 'add', '.');
  git(dir, 'commit', '-qm', 'specs as they are');
  return dir;
}

/**
 * `npm run spec:diff -- …args` in `dir` as its own process (through tsx, as npm runs it): its exit
 * code and output. Once per file: each start costs seconds of loading, so the other runs call the
 * command's function (`inProcess`), which the process runs the same way.
 */
function asProcess(dir: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return run(process.execPath, ['--import', import.meta.resolve('tsx'), path.join(root, 'scripts/spec-diff.ts'), ...args], {
    cwd: dir,
  }).then(
    (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
  );
}

/** The command in this process, with what it prints collected as the process's streams would hold it. */
async function inProcess(dir: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const code = await specDiffCommand(dir, args, { out: (line) => stdout.push(`${line}\n`), err: (line) => stderr.push(`${line}\n`) });
  return { code, stdout: stdout.join(''), stderr: stderr.join('') };
}

function find(changes: SpecChange[], file: string, pattern: RegExp): SpecChange[] {
  return changes.filter((c) => c.file === file && pattern.test(`${c.location} ${c.change}`));
}

t.test('removed field and narrowed enum are breaking, an added optional field is safe', async (t) => {
  const dir = scratchRepository(t);
  // GraphQL: Post.likeCount removed, PostStatus loses ARCHIVED, CreatePostInput gains an optional field.
  edit(dir, 'schema/posts.graphql', 'type Post', '  "Number of distinct users who like the post."\n  likeCount: Int!\n', '');
  edit(
    dir,
    'schema/posts.graphql',
    'enum PostStatus',
    '  "Retired; still readable by everyone but read-only until restored to DRAFT."\n  ARCHIVED\n',
    '',
  );
  edit(dir, 'schema/posts.graphql', 'input CreatePostInput {', '{', '{\n  "Optional subtitle."\n  subtitle: String\n');
  // OpenAPI: the product response loses `description`, the category enum loses TOYS, the creation
  // request gains an optional `color`.
  edit(dir, 'openapi/rest-v1.yaml', '    ProductResponse:', 'required: [id, name, description, ', 'required: [id, name, ');
  edit(
    dir,
    'openapi/rest-v1.yaml',
    '    ProductResponse:',
    "        description:\n          type: [string, 'null']\n          description: Null when the product has no description.\n",
    '',
  );
  edit(dir, 'openapi/rest-v1.yaml', '    ProductCategory:', 'TOYS, ', '');
  edit(
    dir,
    'openapi/rest-v1.yaml',
    '    CreateProductRequest:',
    '      properties:\n',
    '      properties:\n        color:\n          type: string\n          description: Optional colour.\n',
  );

  const changes = await specDiff(dir, 'HEAD');
  const sdl = (pattern: RegExp) => [...new Set(find(changes, 'schema/', pattern).map((c) => c.level))];
  t.same(sdl(/likeCount/), ['error'], 'GraphQL: removed field');
  t.same(sdl(/ARCHIVED/), ['error'], 'GraphQL: narrowed enum');
  t.same(sdl(/subtitle/), ['info'], 'GraphQL: added optional input field');

  const rest = (pattern: RegExp) => [...new Set(find(changes, 'openapi/rest-v1.yaml', pattern).map((c) => c.level))];
  t.ok(
    find(changes, 'openapi/rest-v1.yaml', /^POST \/api\/v1\/products response 201 \.description property removed/).some(
      (c) => c.level === 'error',
    ),
    'OpenAPI: a field removed from a response is breaking',
  );
  t.ok(
    find(changes, 'openapi/rest-v1.yaml', /^POST \/api\/v1\/products request body \.category enum value removed/).some(
      (c) => c.level === 'error' && c.old === 'TOYS',
    ),
    'OpenAPI: an enum narrowed in a request is breaking',
  );
  t.same(rest(/color/), ['info'], 'OpenAPI: an added optional request field is safe');
  t.same(
    [...new Set(changes.map((c) => c.file))].sort(),
    ['openapi/rest-v1.yaml', 'openapi/rest-v2.yaml', 'schema/'],
    'the other documents report nothing (rest-v2 shares the category enum of rest-v1)',
  );
  t.ok(
    find(changes, 'openapi/rest-v2.yaml', /^POST \/api\/v2\/products request body \.category enum value removed/).some(
      (c) => c.level === 'error',
    ),
    'the shared enum is flagged where rest-v2 uses it',
  );

  // The command: an unmarked breaking change fails; committed with a BREAKING CHANGE line, it passes.
  const unmarked = await asProcess(dir, 'HEAD');
  t.equal(unmarked.code, 1, 'an unmarked breaking change fails');
  t.match(unmarked.stdout, /BREAKING CHANGE: <what clients must do>/);
  git(dir, 'commit', '-qam', 'Drop likeCount, ARCHIVED, description and TOYS\n\nBREAKING CHANGE: clients stop reading them.');
  const marked = await inProcess(dir, 'HEAD~1');
  t.equal(marked.code, 0, 'a marked one passes');
  t.match(marked.stdout, /marked as intended/);
});

/** The request bounds the narrowing and widening tests move: a GraphQL input field, an argument, three OpenAPI properties. */
function moveBounds(dir: string, to: { title: string; size: string; name: string; price: string }): void {
  edit(dir, 'schema/posts.graphql', 'input CreatePostInput {', 'maxLength: 200)', `maxLength: ${to.title})`);
  edit(
    dir,
    'schema/posts.graphql',
    'type Post',
    'size: Int = 10 @constraint(min: 1, max: 100)',
    `size: Int = 10 @constraint(min: 1, max: ${to.size})`,
  );
  edit(dir, 'openapi/rest-v1.yaml', '    CreateProductRequest:', 'maxLength: 200', `maxLength: ${to.name}`);
  edit(dir, 'openapi/rest-v1.yaml', '    CreateProductRequest:', 'minimum: 0.01', `minimum: ${to.price}`);
}

t.test('narrowing what a client sends is breaking: one line per change, with its location and old → new', async (t) => {
  const dir = scratchRepository(t);
  moveBounds(dir, { title: '20', size: '50', name: '100', price: '1' });
  edit(dir, 'openapi/rest-v1.yaml', '    ProductCategory:', 'TOYS, ', '');
  edit(
    dir,
    'openapi/rest-v1.yaml',
    '    CreateProductRequest:',
    'required: [name, price, sku, category]',
    'required: [name, price, sku, category, description]',
  );

  const changes = await specDiff(dir, 'HEAD');
  const text = formatChanges(changes, 'text');
  const lines = text.split('\n');
  for (const line of [
    'error    schema/               CreatePostInput.title @constraint  maxLength decreased: 200 → 20',
    'error    schema/               Post.comments(size) @constraint  max decreased: 100 → 50',
    'error    openapi/rest-v1.yaml  POST /api/v1/products request body .name  maxLength decreased: 200 → 100',
    'error    openapi/rest-v1.yaml  POST /api/v1/products request body .price  minimum increased: 0.01 → 1',
    'error    openapi/rest-v1.yaml  POST /api/v1/products request body .category  enum value removed: TOYS → (none)',
    'error    openapi/rest-v1.yaml  POST /api/v1/products request body .description  became required: optional → required',
    'error    openapi/rest-v1.yaml  GET /api/v1/products/search query parameter category  enum value removed: TOYS → (none)',
    'error    openapi/rest-v1.yaml  PUT /api/v1/products/{id} request body .name  maxLength decreased: 200 → 100',
    'error    openapi/rest-v2.yaml  POST /api/v2/products request body .category  enum value removed: TOYS → (none)',
    // What the server sends may lose a value: clients are unaffected.
    'info     openapi/rest-v1.yaml  GET /api/v1/products/{id} response 200 .category  enum value removed: TOYS → (none)',
  ]) {
    t.ok(lines.includes(line), line);
  }
  t.equal(new Set(lines).size, lines.length, 'no line twice (the JSON and XML bodies of a response are one location)');
  t.notOk(
    lines.some((l) => !l.trim()),
    'no empty line',
  );
  t.notOk(text.includes('components/'), 'a change of a component is reported where operations use it, not again in components/');
  const firstInfo = changes.findIndex((c) => c.level !== 'error');
  t.ok(firstInfo > 0 && changes.slice(firstInfo).every((c) => c.level !== 'error'), 'breaking changes first');

  const json = JSON.parse(formatChanges(changes, 'json')) as unknown[];
  t.same(json, changes, 'json: the changes as they are');
  t.same(
    json.find((c) => (c as SpecChange).location === 'POST /api/v1/products request body .name'),
    {
      level: 'error',
      file: 'openapi/rest-v1.yaml',
      location: 'POST /api/v1/products request body .name',
      change: 'maxLength decreased',
      old: '200',
      new: '100',
    },
    'json: {level, file, location, change, old, new}',
  );
  const markdown = formatChanges(changes, 'markdown').split('\n');
  t.equal(markdown[0], '| Level | File | Location | Change | Old | New |');
  t.equal(markdown[1], '|---|---|---|---|---|---|');
  t.ok(
    markdown.includes('| error | `schema/` | `CreatePostInput.title @constraint` | maxLength decreased | `200` | `20` |'),
    'markdown: a row per change',
  );
  t.equal(markdown.length, changes.length + 2);

  const command = await inProcess(dir, 'HEAD', '--format', 'json');
  t.equal(command.code, 1, '--format json: still exits 1 on an unmarked breaking change');
  t.same(JSON.parse(command.stdout), changes, '--format json: stdout is the JSON array alone');
  t.match(command.stderr, /BREAKING CHANGE: <what clients must do>/, 'the verdict on stderr');
});

t.test('widening what a client sends is not breaking; an enum value added to a response is a warning', async (t) => {
  const dir = scratchRepository(t);
  moveBounds(dir, { title: '500', size: '200', name: '300', price: '0' });
  edit(dir, 'openapi/rest-v1.yaml', '    ProductCategory:', 'TOYS, ', 'TOYS, GARDEN, ');

  const changes = await specDiff(dir, 'HEAD');
  const lines = formatChanges(changes, 'text').split('\n');
  for (const line of [
    'info     schema/               CreatePostInput.title @constraint  maxLength increased: 200 → 500',
    'info     schema/               Post.comments(size) @constraint  max increased: 100 → 200',
    'info     openapi/rest-v1.yaml  POST /api/v1/products request body .name  maxLength increased: 200 → 300',
    'info     openapi/rest-v1.yaml  POST /api/v1/products request body .price  minimum decreased: 0.01 → 0',
    'info     openapi/rest-v1.yaml  POST /api/v1/products request body .category  enum value added: (none) → GARDEN',
    'warning  openapi/rest-v1.yaml  GET /api/v1/products/{id} response 200 .category  enum value added: (none) → GARDEN',
  ]) {
    t.ok(lines.includes(line), line);
  }
  t.same(
    changes.filter((c) => c.level === 'error'),
    [],
    'nothing breaking',
  );
  t.equal(new Set(lines).size, lines.length, 'no line twice');

  const command = await inProcess(dir, 'HEAD', '--format', 'markdown');
  t.equal(command.code, 0, 'no breaking change: exit 0');
  t.match(command.stdout, /^\| Level \| File \| Location \| Change \| Old \| New \|\n/);
  t.match(command.stdout, /spec:diff: 0 error, \d+ warning, \d+ info since HEAD/);
  git(dir, 'commit', '-qam', 'widened');
  const none = await inProcess(dir, 'HEAD');
  t.equal(none.stdout, 'spec:diff: no client-visible change since HEAD\n', 'no change: the one line');
});
