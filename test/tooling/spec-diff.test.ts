/**
 * `npm run spec:diff` on scratch copies of the specs (a throw-away git repository): a removed field
 * and a narrowed enum are breaking, an added optional field is safe, on the SDL and on an OpenAPI
 * document alike; the command fails on an unmarked breaking change and passes once a commit carries
 * a `BREAKING CHANGE:` line.
 */
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import t, { type Test } from 'tap';
import { specDiff, type SpecChange } from '../../scripts/spec-diff.ts';

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

function find(changes: SpecChange[], spec: string, pattern: RegExp): SpecChange[] {
  return changes.filter((c) => c.spec === spec && pattern.test(`${c.where} ${c.message}`));
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
  const sdl = (pattern: RegExp) => [...new Set(find(changes, 'schema/', pattern).map((c) => c.severity))];
  t.same(sdl(/likeCount/), ['BREAKING'], 'GraphQL: removed field');
  t.same(sdl(/ARCHIVED/), ['BREAKING'], 'GraphQL: narrowed enum');
  t.same(sdl(/subtitle/), ['SAFE'], 'GraphQL: added optional input field');

  const rest = (pattern: RegExp) => [...new Set(find(changes, 'openapi/rest-v1.yaml', pattern).map((c) => c.severity))];
  t.ok(
    find(changes, 'openapi/rest-v1.yaml', /^POST \/api\/v1\/products .*property `description`/).some((c) => c.severity === 'BREAKING'),
    'OpenAPI: a field removed from a response is breaking',
  );
  t.ok(
    find(changes, 'openapi/rest-v1.yaml', /^POST \/api\/v1\/products .*possible values of `category` in Request/).some(
      (c) => c.severity === 'BREAKING',
    ),
    'OpenAPI: an enum narrowed in a request is breaking',
  );
  t.same(rest(/color/), ['SAFE'], 'OpenAPI: an added optional request field is safe');
  t.same(
    [...new Set(changes.map((c) => c.spec))].sort(),
    ['openapi/rest-v1.yaml', 'openapi/rest-v2.yaml', 'schema/'],
    'the other documents report nothing (rest-v2 shares the category enum of rest-v1)',
  );
  t.ok(
    find(changes, 'openapi/rest-v2.yaml', /^POST \/api\/v2\/products .*possible values of `category` in Request/).some(
      (c) => c.severity === 'BREAKING',
    ),
    'the shared enum is flagged where rest-v2 uses it',
  );

  // The command: an unmarked breaking change fails; committed with a BREAKING CHANGE line, it passes.
  const cli = (...args: string[]) =>
    run(process.execPath, ['--import', import.meta.resolve('tsx'), path.join(root, 'scripts/spec-diff.ts'), ...args], { cwd: dir }).then(
      (r) => ({ code: 0, stdout: r.stdout }),
      (e: { code: number; stdout: string }) => ({ code: e.code, stdout: e.stdout }),
    );
  const unmarked = await cli('HEAD');
  t.equal(unmarked.code, 1, 'an unmarked breaking change fails');
  t.match(unmarked.stdout, /BREAKING CHANGE: <what clients must do>/);
  git(dir, 'commit', '-qam', 'Drop likeCount, ARCHIVED, description and TOYS\n\nBREAKING CHANGE: clients stop reading them.');
  const marked = await cli('HEAD~1');
  t.equal(marked.code, 0, 'a marked one passes');
  t.match(marked.stdout, /marked as intended/);
});
