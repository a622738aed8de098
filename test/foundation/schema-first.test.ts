// test-suite: once (the server refuses to start before it serves anything; the compiler reads no database).
/**
 * The schema-first contract: what a spec declares and nobody wrote yet points at the file to write it
 * in. One scratch copy of the project (the working tree is never touched) gains, before one
 * `npm run generate`:
 * - a field of User in schema/users.graphql without a column, and a field of Query in
 *   schema/posts.graphql: generate names them and their places, and the typecheck fails, naming each
 *   field, in its area's resolvers file (src/content/users.resolvers.ts, posts.resolvers.ts), one
 *   error a field and none in the file that merges the areas (src/content/content.graph.ts), until
 *   resolvers exist;
 * - a migration adding posts.summary and the field Post.summary: the row carries it, so generate
 *   names nothing to write, the row types gain the column, and the repository's insert and update
 *   types take it without an edit (a probe in src/ the same typecheck reads);
 * - two operations in openapi/rest-v1.yaml without handlers: the typecheck fails in the handler map of
 *   each one's tag (src/catalog/products.v1.handlers.ts, src/orders/orders.handlers.ts, typed by the
 *   generated ProductsOperations and OrdersOperations), naming it; and the server, started as `npm start`
 *   starts it (the sources compiled by scripts/build.mjs, which checks no types, as tsx under `npm run
 *   dev` does not either; a build costs a few CPU-seconds less than tsx compiling every module of a
 *   fresh copy), stops with one line per operation naming the file where the operations of its tag
 *   are written;
 * - a parameter of openapi/posts.yaml without its description, a finding of redocly.yaml's rules:
 *   `generate --warn-lint` prints it and generates anyway (test/tooling/spec-errors.test.ts has the
 *   refusal without the flag).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { TSC, typecheckStateFile } from '../../scripts/tsc.ts';
import { scratchProject } from '../helpers/scratch-project.ts';
import { serverDatabaseEnv } from '../helpers/server-database.ts';
import { SERVER_V8_FLAGS } from '../helpers/server-process.ts';

const run = promisify(execFile);

/** Replaces `anchor` in `file` by `replacement`; fails when the file no longer holds it once. */
function replaceOnce(file: string, anchor: string, replacement: string): void {
  const text = fs.readFileSync(file, 'utf8');
  if (text.split(anchor).length !== 2) throw new Error(`${file} no longer holds ${JSON.stringify(anchor)} once`);
  fs.writeFileSync(file, text.replace(anchor, replacement));
}

/** An operation of rest-v1 without a body, answering 204, for the edit below. */
function operation(operationId: string, tag: string, parameter: string): string {
  return [
    '    parameters:',
    `      - $ref: '#/components/parameters/${parameter}'`,
    '    post:',
    `      operationId: ${operationId}`,
    `      tags: [${tag}]`,
    `      summary: ${operationId}`,
    '      description: Added by the test.',
    '      security:',
    '        - bearerAuth: []',
    '      responses:',
    "        '204':",
    '          description: Done.',
    "        '401':",
    "          $ref: './components/problem.yaml#/components/responses/Unauthorized'",
    '',
  ].join('\n');
}

const dir = scratchProject(t, 'schema-first', ['generated']);
// Typecheck the application (src/ and the generated files it imports) only: the contract is about
// resolvers, and scripts/ or benchmarks being edited elsewhere must not decide this test.
const tsconfigPath = path.join(dir, 'tsconfig.json');
const tsconfig = JSON.parse(fs.readFileSync(tsconfigPath, 'utf8')) as { include: string[] };
fs.writeFileSync(tsconfigPath, JSON.stringify({ ...tsconfig, include: ['src'] }, null, 2));

const usersSdl = path.join(dir, 'schema/users.graphql');
replaceOnce(
  usersSdl,
  '  "When the account was created."\n  createdAt: DateTime!',
  '  "When the account was created."\n  createdAt: DateTime!\n  "How often the user was pinged."\n  pingCount: Int!',
);
fs.appendFileSync(path.join(dir, 'schema/posts.graphql'), '\nextend type Query {\n  "Most liked posts."\n  trendingPosts: [Post!]!\n}\n');
const spec = path.join(dir, 'openapi/rest-v1.yaml');
replaceOnce(
  spec,
  '  /api/v1/products/{id}:\n',
  `  /api/v1/products/{id}/archive:\n${operation('archiveProduct', 'products', 'productId')}  /api/v1/products/{id}:\n`,
);
replaceOnce(
  spec,
  '  /api/v1/orders/{id}/cancel:\n',
  `  /api/v1/orders/{id}/hold:\n${operation('holdOrder', 'orders', 'orderId')}  /api/v1/orders/{id}/cancel:\n`,
);

// A new column: a migration and an SDL field, no repository edit.
const migrations = path.join(dir, 'src/db/migrations');
fs.writeFileSync(
  path.join(migrations, '0999_post_summary.ts'),
  [
    "import { sql, type Kysely } from 'kysely';",
    '',
    'export async function up(db: Kysely<unknown>): Promise<void> {',
    '  await sql`alter table posts add column summary text`.execute(db);',
    '}',
    '',
  ].join('\n'),
);
const migrationIndex = path.join(migrations, 'index.ts');
fs.writeFileSync(
  migrationIndex,
  fs
    .readFileSync(migrationIndex, 'utf8')
    .replace(/^(import \* as m0001 .*)$/m, "$1\nimport * as m0999 from './0999_post_summary.ts';")
    .replace(/^};\s*$/m, "  '0999_post_summary': m0999,\n};\n"),
);
replaceOnce(path.join(dir, 'schema/posts.graphql'), 'type Post {\n', 'type Post {\n  "A short summary."\n  summary: String\n');
// The repository's insert and update types take the column as they are.
fs.writeFileSync(
  path.join(dir, 'src/new-column.probe.ts'),
  [
    "import type { Executor } from './db/transaction.ts';",
    "import { insertPost, updatePost } from './content/posts.repository.ts';",
    '',
    'export async function probe(db: Executor): Promise<string | null> {',
    "  const post = await insertPost(db, { author_id: 'a', title: 't', content: 'c', slug: 's', published_at: null, summary: 'short' });",
    "  await updatePost(db, post.id, { summary: 'shorter' });",
    '  // @ts-expect-error a column that does not exist is refused',
    "  await updatePost(db, post.id, { nosuch: 'x' });",
    '  return post.summary;',
    '}',
    '',
  ].join('\n'),
);

const postsSpec = path.join(dir, 'openapi/posts.yaml');
const undescribedParameter = '          description: Offset form. Number of posts to skip (0-based).\n';
replaceOnce(postsSpec, undescribedParameter, '');
const postsText = fs.readFileSync(postsSpec, 'utf8');
const offsetAt = postsText.indexOf('- name: offset') + 2;
const lintLine =
  `openapi/posts.yaml:${postsText.slice(0, offsetAt).split('\n').length}:${offsetAt - postsText.lastIndexOf('\n', offsetAt - 1)}: ` +
  'Parameter object description must be present. (parameter-description)';

// `npm run generate` as the user types it (tsx), once for the tests below.
const generated = await run(process.execPath, ['--import', 'tsx', 'scripts/generate.ts', '--warn-lint'], { cwd: dir });

/** The type errors generate listed, one line a file (`file:line:col: message`). */
const rejected = (/^type errors in \d+ file\(s\) \(tsc -p tsconfig\.json\):\n((?: {2}.*\n)*)/m.exec(generated.stdout)?.[1] ?? '')
  .split('\n')
  .filter(Boolean)
  .map((line) => line.trim());

/** Incremental from generate's own typecheck: it re-reads only what the resolvers' files touch. */
async function tsc(): Promise<{ ok: boolean; output: string }> {
  try {
    // One thread: the compiler's checkers in parallel spend half as much CPU again for the same answer.
    const args = ['-p', '.', '--incremental', '--tsBuildInfoFile', typecheckStateFile(dir), '--singleThreaded'];
    const { stdout } = await run(process.execPath, [TSC, ...args], { cwd: dir, maxBuffer: 16 * 1024 * 1024 });
    return { ok: true, output: stdout };
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string };
    return { ok: false, output: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}

t.test('generate --warn-lint prints a lint finding and generates anyway', async (t) => {
  t.equal(generated.stderr, `${lintLine}\n`, 'the finding, one line at its place');
  t.match(fs.readFileSync(path.join(dir, 'generated/openapi/posts.json'), 'utf8'), /"offset"/, 'generated/ is written');
});

t.test('generate names each new field and the file to write it in', async (t) => {
  t.match(
    generated.stdout,
    // No users.ping_count column either: generate offers both ways, a column or a resolver.
    'missing column: User.pingCount (schema/users.graphql): add users.ping_count in a new migration in src/db/migrations/, or write a resolver in src/content/users.resolvers.ts',
    'generate names the column or the resolver to write, and their places',
  );
  t.match(
    generated.stdout,
    'missing resolver: Query.trendingPosts (schema/posts.graphql): write it in src/content/posts.resolvers.ts',
    'and the resolver of a field of Query',
  );
  t.match(fs.readFileSync(path.join(dir, 'generated/graphql/resolvers.ts'), 'utf8'), /'pingCount'/, 'StrictResolvers requires it');
});

t.test('a new column is one edit: a migration and an SDL field, no repository edit', async (t) => {
  t.notMatch(generated.stdout, /summary/, 'the row carries the field: nothing else to write');
  const types = fs.readFileSync(path.join(dir, 'generated/db/types.ts'), 'utf8');
  t.match(types, /export interface PostsTable \{[^}]*\n {2}summary: string \| null;\n\}/, 'the row types gain the column');
  t.match(types, /export type NewPostsRow = Insertable<PostsTable>;/);
  // The typecheck below reads src/new-column.probe.ts too: it has no error in either run.
});

t.test('an operation without a handler stops the server with one line naming the slice type to complete', async (t) => {
  // As `npm start` starts it: the sources compiled without a typecheck (prestart), then node.
  await run(process.execPath, ['scripts/build.mjs'], { cwd: dir });
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'development',
    LOG_LEVEL: 'silent',
    // A migrated database: the refusal comes after the database is open.
    ...(await serverDatabaseEnv(t)),
    PORT: '0',
    HOST: '127.0.0.1',
  };
  const started = await run(process.execPath, [...SERVER_V8_FLAGS, '--enable-source-maps', 'dist/src/main.js'], {
    cwd: dir,
    env,
    timeout: 90_000,
  }).then(
    ({ stderr }) => ({ code: 0, stderr }),
    (error: { code: number; stderr: string }) => error,
  );
  t.equal(started.code, 1, 'the server exits 1');
  t.equal(
    started.stderr,
    [
      'error: openapi/rest-v1.yaml: operation archiveProduct (POST /api/v1/products/{id}/archive) has no handler; add it to the handlers of `ProductsOperations` (generated/openapi/rest-v1.ts); `npm run typecheck` names the file',
      'error: openapi/rest-v1.yaml: operation holdOrder (POST /api/v1/orders/{id}/hold) has no handler; add it to the handlers of `OrdersOperations` (generated/openapi/rest-v1.ts); `npm run typecheck` names the file',
      '',
    ].join('\n'),
    'one line per missing handler, each naming the generated slice type its area answers',
  );
});

t.test('a new SDL field or operation is a compile error in its area resolvers or handlers file until it is written', async (t) => {
  // generate asks the compiler and lists every file it rejects, first error each.
  t.same(
    rejected.map((line) => line.slice(0, line.indexOf(':'))),
    [
      'src/catalog/products.v1.handlers.ts',
      'src/content/posts.resolvers.ts',
      'src/content/users.resolvers.ts',
      'src/orders/orders.handlers.ts',
    ],
    `generate lists each file tsc rejects: its area's resolvers or handlers file, not the probe of the new column:\n${generated.stdout}`,
  );
  const [productsLine, postsLine, usersLine, ordersLine] = rejected;
  t.match(
    usersLine,
    /^src\/content\/users\.resolvers\.ts:\d+:\d+: .*pingCount/,
    'in the area file of schema/users.graphql, naming the field',
  );
  t.match(postsLine, /^src\/content\/posts\.resolvers\.ts:\d+:\d+: .*'trendingPosts'/, 'at the export of posts.resolvers.ts');
  t.notMatch(generated.stdout, /content\.graph\.ts/, 'not in the file that merges the areas');
  // A new operation is a compile error in the handler map of its tag's area (the generated
  // ProductsOperations / OrdersOperations types), naming it, until it has a handler.
  t.match(
    productsLine,
    /^src\/catalog\/products\.v1\.handlers\.ts:\d+:\d+: .*'archiveProduct'/,
    'archiveProduct, in the products handlers',
  );
  t.match(ordersLine, /^src\/orders\/orders\.handlers\.ts:\d+:\d+: .*'holdOrder'/, 'holdOrder, in the orders handlers');
  const users = path.join(dir, 'src/content/users.resolvers.ts');
  const posts = path.join(dir, 'src/content/posts.resolvers.ts');
  replaceOnce(users, '  User: {\n', '  User: {\n    pingCount: () => 0,\n');
  replaceOnce(posts, '  Query: {\n', '  Query: {\n    trendingPosts: () => [],\n');
  const handler = (name: string) => `    ${name}: async (_request, reply) => reply.code(204).send(),\n`;
  replaceOnce(
    path.join(dir, 'src/catalog/products.v1.handlers.ts'),
    '  const products = services.products;\n  return {\n',
    `  const products = services.products;\n  return {\n${handler('archiveProduct')}`,
  );
  replaceOnce(
    path.join(dir, 'src/orders/orders.handlers.ts'),
    '  const { customers, orders } = services;\n  return {\n',
    `  const { customers, orders } = services;\n  return {\n${handler('holdOrder')}`,
  );
  const fixed = await tsc();
  t.ok(fixed.ok, `typecheck passes with the resolvers and the handlers${fixed.ok ? '' : `:\n${fixed.output}`}`);
});
