/**
 * What `npm run generate` prints after a spec gains an operation or a field nobody wrote yet: one
 * short line naming it and the area file to write it in (scripts/generate/implementation-check.ts),
 * the migration folder when the field has no column; and a new column needs no repository edit.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { generate, unimplemented } from '../../scripts/generate.ts';
import { missingImplementations, readInputs, mappedRows } from '../../scripts/generate/implementation-check.ts';
import { loadOpenApiDocument } from '../../src/http/openapi-docs.ts';
import settings from '../../codegen.ts';
import fs from 'node:fs';
import { scratchProject } from '../helpers/scratch-project.ts';

const run = promisify(execFile);

const root = path.resolve(import.meta.dirname, '../..');

t.test('the project as it is implements everything its specs declare', async (t) => {
  t.same(unimplemented(root, path.join(root, 'generated')), []);
});

t.test('a new operation and new fields are one line each, naming the file to write', async (t) => {
  const restV1 = structuredClone(loadOpenApiDocument('rest-v1'));
  restV1.paths['/api/v1/products/{id}/archive'] = {
    post: { operationId: 'archiveProduct', tags: ['products'], responses: { '204': { description: 'Archived.' } } },
  };
  restV1.paths['/api/v1/warehouses'] = {
    get: { operationId: 'listWarehouses', tags: ['warehouses'], responses: { '200': { description: 'ok' } } },
  };
  const dbTypes = fs.readFileSync(path.join(root, 'generated/db/types.ts'), 'utf8');
  const mappers = settings.generates['generated/graphql/resolvers.ts']!.config!.mappers as Record<string, string>;
  const inputs = readInputs(root, { 'rest-v1': restV1 }, dbTypes, mappers);
  inputs.sdl['posts.graphql'] +=
    '\nextend type Query {\n  "Most liked posts."\n  trendingPosts: [Post!]!\n}\nextend type Post {\n  "Minutes to read."\n  readingMinutes: Int!\n}\n';

  t.same(missingImplementations(inputs), [
    'missing handler: rest-v1#archiveProduct (POST /api/v1/products/{id}/archive): write it in src/catalog/products.v1.handlers.ts (beside listProducts)',
    'missing handler: rest-v1#listWarehouses (GET /api/v1/warehouses): write it in src/catalog/products.v1.handlers.ts (beside listProducts)',
    'missing resolver: Query.trendingPosts (schema/posts.graphql): write it in src/content/posts.resolvers.ts',
    'missing column: Post.readingMinutes (schema/posts.graphql): add posts.reading_minutes in a new migration in src/db/migrations/, or write a resolver in src/content/posts.resolvers.ts',
  ]);
  t.ok(mappedRows(mappers, dbTypes).Post!.has('title'), 'a field the row carries needs no resolver');
});

t.test('a field or property without its column names the migration folder; one with it, the file to map it in', async (t) => {
  const restV1 = structuredClone(loadOpenApiDocument('rest-v1'));
  const product = restV1.components!.schemas!.ProductResponse as { properties: Record<string, unknown> };
  product.properties.weightGrams = { type: 'integer' };
  product.properties.version = { type: 'integer' };
  const dbTypes = fs.readFileSync(path.join(root, 'generated/db/types.ts'), 'utf8');
  const mappers = settings.generates['generated/graphql/resolvers.ts']!.config!.mappers as Record<string, string>;
  const inputs = readInputs(root, { 'rest-v1': restV1 }, dbTypes, mappers);
  inputs.sdl['posts.graphql'] += '\nextend type Post {\n  "When it was published."\n  publishedAt: DateTime\n}\n';

  t.same(missingImplementations(inputs), [
    'missing resolver: Post.publishedAt (schema/posts.graphql): write it in src/content/posts.resolvers.ts',
    'missing column: rest-v1#ProductResponse.weightGrams (openapi/rest-v1.yaml): add products.weight_grams in a new migration in src/db/migrations/, then map it in src/catalog/products.v1.representation.ts',
    'missing representation: rest-v1#ProductResponse.version (openapi/rest-v1.yaml): map it in src/catalog/products.v1.representation.ts',
  ]);
});

t.test('a new column is one edit: a migration and an SDL field, no repository edit', async (t) => {
  const dir = scratchProject(t, 'new-column');
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
  const index = path.join(migrations, 'index.ts');
  fs.writeFileSync(
    index,
    fs
      .readFileSync(index, 'utf8')
      .replace(/^(import \* as m0001 .*)$/m, "$1\nimport * as m0999 from './0999_post_summary.ts';")
      .replace(/^};\s*$/m, "  '0999_post_summary': m0999,\n};\n"),
  );
  const sdl = path.join(dir, 'schema/posts.graphql');
  fs.writeFileSync(sdl, fs.readFileSync(sdl, 'utf8').replace(/^type Post \{$/m, 'type Post {\n  "A short summary."\n  summary: String'));

  // What `npm run generate` runs and then prints under "to implement", in this process: it has loaded
  // the generator for the tests above already.
  await generate(dir, path.join(dir, 'generated'));
  t.same(unimplemented(dir, path.join(dir, 'generated')), [], 'the row carries the field: nothing else to write');
  const types = fs.readFileSync(path.join(dir, 'generated/db/types.ts'), 'utf8');
  t.match(types, /export interface PostsTable \{[^}]*\n {2}summary: string \| null;\n\}/);
  t.match(types, /export type NewPostsRow = Insertable<PostsTable>;/);

  // The repository's insert and update types take the column as they are, and Post's resolvers need
  // nothing new (the files these reach only: the whole project would take a minute to check).
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
  fs.writeFileSync(
    path.join(dir, 'tsconfig.probe.json'),
    JSON.stringify({ extends: './tsconfig.json', include: [], files: ['src/new-column.probe.ts', 'src/content/posts.resolvers.ts'] }),
  );
  const tsc = path.join(root, 'node_modules/typescript/bin/tsc');
  await t.resolves(run(process.execPath, [tsc, '-p', 'tsconfig.probe.json'], { cwd: dir }), 'typechecks without a repository edit');
});
