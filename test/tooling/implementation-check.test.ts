/**
 * What `npm run generate` prints after a spec gains an operation or a field nobody wrote yet: one
 * short line naming it and the area file to write it in (scripts/generate/implementation-check.ts).
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
  const restV1 = loadOpenApiDocument('rest-v1');
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
    'missing resolver: Post.readingMinutes (schema/posts.graphql): write it in src/content/posts.resolvers.ts',
  ]);
  t.ok(mappedRows(mappers, dbTypes).Post!.has('title'), 'a field the row carries needs no resolver');
});
