/**
 * What `npm run generate` prints after a spec gains an operation or a field nobody wrote yet: one
 * short line naming it and the area file to write it in (scripts/generate/implementation-check.ts),
 * the migration folder when the field has no column. That a new column needs no repository edit is
 * tested on schema-first.test.ts's scratch project, whose typecheck reads a probe of it.
 */
import path from 'node:path';
import t from 'tap';
import { unimplemented } from '../../scripts/generate.ts';
import { missingImplementations, readInputs, mappedRows } from '../../scripts/generate/implementation-check.ts';
import { loadOpenApiDocument } from '../../src/http/openapi-docs.ts';
import settings from '../../codegen.ts';
import fs from 'node:fs';

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
    'missing mapping: Post.publishedAt (schema/posts.graphql): map it to posts.published_at in src/content/field-columns.ts, or write a resolver in src/content/posts.resolvers.ts',
    'missing column: rest-v1#ProductResponse.weightGrams (openapi/rest-v1.yaml): add products.weight_grams in a new migration in src/db/migrations/, then map it in src/catalog/products.v1.representation.ts',
    'missing representation: rest-v1#ProductResponse.version (openapi/rest-v1.yaml): map it in src/catalog/products.v1.representation.ts',
  ]);
});
