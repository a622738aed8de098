/**
 * Every problem with a spec is one line `file:line:column: message` (scripts/generate/sdl.ts,
 * scripts/generate/openapi.ts): SDL errors at their place in schema/<file>.graphql (not in the merged
 * schema), YAML syntax errors and unresolved `$ref`s at their place in openapi/, and the findings of
 * redocly.yaml's rules, which `npm run generate` checks as `npm run lint:specs` does. The checks on
 * edited copies of the repository's own specs, then the commands on a scratch copy of the project.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import t, { type Test } from 'tap';
import { bundleDocument, lintDocument, loadLintConfig } from '../../scripts/generate/openapi.ts';
import { buildSdlSchema, readGraphqlFiles, type GraphqlFile } from '../../scripts/generate/sdl.ts';
import { SpecError } from '../../scripts/generate/spec-error.ts';
import { scratchProject } from '../helpers/scratch-project.ts';

const root = path.resolve(import.meta.dirname, '../..');
const run = promisify(execFile);

/** `text` with `from` replaced by `to` once; fails when the spec no longer holds `from`. */
function edit(text: string, from: string, to: string): string {
  if (!text.includes(from)) throw new Error(`the spec no longer holds ${JSON.stringify(from)}`);
  return text.replace(from, to);
}

/** 1-based line and column of the first `needle` in `text`, after `offset` characters into it. */
function placeOf(text: string, needle: string, offset = 0): { line: number; column: number } {
  const at = text.indexOf(needle);
  if (at < 0) throw new Error(`no ${JSON.stringify(needle)}`);
  const before = text.slice(0, at + offset);
  return { line: before.split('\n').length, column: at + offset - before.lastIndexOf('\n') };
}

/** The message of the SpecError `check` throws (fails the test when it throws none). */
async function refusal(t: Test, check: () => unknown): Promise<string> {
  try {
    await check();
  } catch (error) {
    t.ok(error instanceof SpecError, 'a SpecError, printed without a stack');
    return (error as Error).message;
  }
  t.fail('the spec is refused');
  return '';
}

const sdl = readGraphqlFiles(root, 'schema/*.graphql');
function withPosts(text: (posts: string) => string): { files: GraphqlFile[]; posts: string } {
  const posts = text(sdl.find((f) => f.file === 'schema/posts.graphql')!.text);
  return { files: sdl.map((f) => (f.file === 'schema/posts.graphql' ? { ...f, text: posts } : f)), posts };
}

t.test('the repository SDL builds', async (t) => {
  t.doesNotThrow(() => buildSdlSchema(sdl));
});

t.test('an SDL syntax error names its file, line and column, not the merged schema', async (t) => {
  const { files, posts } = withPosts((text) => edit(text, '  content: String!\n', '  content String!\n'));
  const { line, column } = placeOf(posts, '  content String!', '  content '.length);
  t.equal(
    await refusal(t, () => buildSdlSchema(files)),
    `schema/posts.graphql:${line}:${column}: Syntax Error: Expected ":", found Name "String".`,
  );
});

t.test('an unknown type names its file, line and column', async (t) => {
  const { files, posts } = withPosts((text) => edit(text, '  author: User!\n', '  author: Auther!\n'));
  const { line, column } = placeOf(posts, '  author: Auther!', '  author: '.length);
  t.equal(
    await refusal(t, () => buildSdlSchema(files)),
    `schema/posts.graphql:${line}:${column}: Unknown type "Auther". Did you mean "User"?`,
  );
});

t.test('a duplicate field names both places', async (t) => {
  const { files, posts } = withPosts((text) => edit(text, '  content: String!\n', '  content: String!\n  title: String!\n'));
  const first = placeOf(posts, '  title: String!', 2);
  const second = placeOf(posts, '  content: String!\n  title: String!', '  content: String!\n  '.length);
  t.equal(
    await refusal(t, () => buildSdlSchema(files)),
    `schema/posts.graphql:${first.line}:${first.column}: Field "Post.title" can only be defined once. (also schema/posts.graphql:${second.line}:${second.column})`,
  );
});

t.test('OpenAPI documents: YAML syntax, $ref and lint findings', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'schemaforge-spec-errors-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  fs.cpSync(path.join(root, 'openapi'), path.join(dir, 'openapi'), { recursive: true });
  fs.cpSync(path.join(root, 'redocly.yaml'), path.join(dir, 'redocly.yaml'));
  const spec = path.join(dir, 'openapi/posts.yaml');
  const original = fs.readFileSync(spec, 'utf8');
  const config = await loadLintConfig(dir);

  t.test('the repository documents bundle and lint clean', async (t) => {
    t.same(await lintDocument(config, dir, spec), { errors: [], warnings: [] });
  });

  t.test('a YAML syntax error', async (t) => {
    const text = edit(original, '  version: 1.0.0\n', '  version: 1.0.0\n version: 2\n');
    fs.writeFileSync(spec, text);
    const { line } = placeOf(text, '\n version: 2', 1);
    t.equal(await refusal(t, () => bundleDocument(spec)), `openapi/posts.yaml:${line}:1: All mapping items must start at the same column`);
    // generate lints whatever bundling found: a document that does not parse leaves it nothing to add.
    t.same(await lintDocument(config, dir, spec), { errors: [], warnings: [] }, 'the linter adds no line, and no stack trace');
  });

  t.test('a YAML syntax error in a referenced file is one line, in that file', async (t) => {
    fs.writeFileSync(spec, original);
    const problem = path.join(dir, 'openapi/components/problem.yaml');
    const problemText = fs.readFileSync(problem, 'utf8');
    t.teardown(() => fs.writeFileSync(problem, problemText));
    const broken = edit(problemText, '\n      type: http\n', '\n      type: http\n     scheme: basic\n');
    fs.writeFileSync(problem, broken);
    const { line } = placeOf(broken, '\n     scheme: basic', 1);
    t.equal(
      await refusal(t, () => bundleDocument(spec)),
      `openapi/components/problem.yaml:${line}:1: All mapping items must start at the same column`,
    );
  });

  t.test('a YAML syntax error is placed on the line of the mistake, not where the parser gave up', async (t) => {
    // A missing colon: js-yaml (the bundler's parser) stops on the next line.
    const colonless = edit(original, '\n  version: 1.0.0\n', '\n  version 1.0.0\n');
    fs.writeFileSync(spec, colonless);
    const missing = placeOf(colonless, '\n  version 1.0.0', 3);
    t.equal(
      await refusal(t, () => bundleDocument(spec)),
      `openapi/posts.yaml:${missing.line}:${missing.column}: Implicit keys need to be on a single line`,
    );
    t.same(await lintDocument(config, dir, spec), { errors: [], warnings: [] }, 'the linter adds no line, and no stack trace');
  });

  t.test('an unresolved $ref names the ref and where it is', async (t) => {
    const text = edit(original, "- $ref: '#/components/parameters/limit'\n", "- $ref: '#/components/parameters/limitt'\n");
    fs.writeFileSync(spec, text);
    const { line, column } = placeOf(text, "$ref: '#/components/parameters/limitt'");
    t.equal(
      await refusal(t, () => bundleDocument(spec)),
      `openapi/posts.yaml:${line}:${column}: cannot resolve $ref '#/components/parameters/limitt'`,
    );
  });

  t.test('a parameter without a description is a finding of redocly.yaml (parameter-description)', async (t) => {
    const text = edit(original, '          description: Offset form. Number of posts to skip (0-based).\n', '');
    fs.writeFileSync(spec, text);
    const { line, column } = placeOf(text, '- name: offset', 2);
    t.same(await lintDocument(config, dir, spec), {
      errors: [`openapi/posts.yaml:${line}:${column}: Parameter object description must be present. (parameter-description)`],
      warnings: [],
    });
  });
});

t.test('npm run generate and lint:specs refuse the same specs, one line each', async (t) => {
  const dir = scratchProject(t, 'spec-errors');

  const posts = path.join(dir, 'openapi/posts.yaml');
  const undescribed = edit(fs.readFileSync(posts, 'utf8'), '          description: Offset form. Number of posts to skip (0-based).\n', '');
  fs.writeFileSync(posts, undescribed);
  const lintAt = placeOf(undescribed, '- name: offset', 2);
  const lintLine = `openapi/posts.yaml:${lintAt.line}:${lintAt.column}: Parameter object description must be present. (parameter-description)`;

  // In a component every document bundles: each of them fails on it, and the line is said once.
  const shared = path.join(dir, 'openapi/components/problem.yaml');
  const sharedText = fs.readFileSync(shared, 'utf8');
  const firstRef = "$ref: '#/components/schemas/FieldError'";
  const badRef = edit(sharedText, firstRef, `${firstRef.slice(0, -1)}X'`);
  fs.writeFileSync(shared, badRef);
  const refAt = placeOf(badRef, `${firstRef.slice(0, -1)}X'`);
  const refLine = `openapi/components/problem.yaml:${refAt.line}:${refAt.column}: cannot resolve $ref '#/components/schemas/FieldErrorX'`;

  const schema = path.join(dir, 'schema/posts.graphql');
  const sdlText = edit(fs.readFileSync(schema, 'utf8'), '  author: User!\n', '  author: Auther!\n');
  fs.writeFileSync(schema, sdlText);
  const sdlAt = placeOf(sdlText, '  author: Auther!', '  author: '.length);
  const sdlLine = `schema/posts.graphql:${sdlAt.line}:${sdlAt.column}: Unknown type "Auther". Did you mean "User"?`;

  const out = path.join(dir, 'out');
  const generate = () =>
    run(process.execPath, ['--import', 'tsx', 'scripts/generate.ts', '--out', out], { cwd: dir }).then(
      ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
      (error: { code: number; stdout: string; stderr: string }) => error,
    );

  const refused = await generate();
  t.equal(refused.code, 1, 'generate fails');
  t.equal(
    refused.stderr,
    `${[refLine, lintLine, sdlLine].join('\n')}\n`,
    'every problem once, in document name order, then the SDL; no stack',
  );
  t.notOk(fs.existsSync(out), 'nothing is written');

  const checkSdl = await run(process.execPath, ['--import', 'tsx', 'scripts/check-sdl.ts'], { cwd: dir }).then(
    () => null,
    (error: { code: number; stderr: string }) => error,
  );
  t.equal(checkSdl?.code, 1, 'lint:specs SDL check fails');
  t.equal(checkSdl?.stderr, `${sdlLine}\n\nSDL check failed with 1 error(s).\n`, 'with the same line');
  // With only the lint finding left, `--warn-lint` prints it and generates: checked on the full
  // generate of test/foundation/schema-first.test.ts, which pays for one anyway.
});
