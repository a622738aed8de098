/**
 * Services name the offending input in domain terms (src/errors.ts); each transport renders the name
 * once: REST as a JSON Pointer into the body or `<in>.<name>` (components/problem.yaml), GraphQL as
 * the argument path (`input.username`, `input.tags[2]`).
 */
import t from 'tap';
import type { ErrorObject } from 'ajv';
import { GraphQLError } from 'graphql';
import { validationFailed, type Violation } from '../../src/errors.ts';
import { graphqlField, mapGraphQLError } from '../../src/graphql/errors.ts';
import { violationsFrom } from '../../src/http/openapi-routes.ts';
import { restField, toProblem } from '../../src/http/problem.ts';

const cases: [violation: Omit<Violation, 'message'>, rest: string, graphql: string][] = [
  [{ field: ['price'] }, '/price', 'input.price'],
  [{ field: ['username'], source: 'input' }, '/username', 'input.username'],
  [{ field: ['items', 2, 'productId'] }, '/items/2/productId', 'input.items[2].productId'],
  [{ field: ['attributes', 0, 'key'] }, '/attributes/0/key', 'input.attributes[0].key'],
  [{ field: ['a/b', 'c~d'] }, '/a~1b/c~0d', 'input.a/b.c~d'],
  [{ field: [] }, '', 'input'],
  [{ field: ['minPrice'], source: 'parameter' }, 'query.minPrice', 'minPrice'],
  [{ field: ['sort', '0'], source: 'parameter' }, 'query.sort.0', 'sort.0'],
  [{ field: ['input', 'tags', 2], source: 'parameter' }, 'query.input.tags.2', 'input.tags[2]'],
  [{ field: ['id'], source: 'identifier' }, 'path.id', 'id'],
  [{ field: ['userId'], source: 'identifier' }, 'path.userId', 'userId'],
];

t.test('each source renders as its transport names it', async (t) => {
  for (const [violation, rest, graphql] of cases) {
    const v = { ...violation, message: 'is wrong' };
    t.equal(restField(v), rest, `REST ${JSON.stringify(violation)}`);
    t.equal(graphqlField(v), graphql, `GraphQL ${JSON.stringify(violation)}`);
  }
});

t.test('the error mappers render every violation and keep its message', async (t) => {
  const error = validationFailed([
    { field: ['minPrice'], source: 'parameter', message: 'must not be greater than maxPrice' },
    { field: ['items', 1, 'productId'], message: 'product already ordered in an earlier line' },
  ]);
  t.same(toProblem(error, '/api/v1/orders').errors, [
    { field: 'query.minPrice', message: 'must not be greater than maxPrice' },
    { field: '/items/1/productId', message: 'product already ordered in an earlier line' },
  ]);
  const mapped = mapGraphQLError(new GraphQLError('Validation failed', { path: ['createOrder'], originalError: error }));
  t.same(mapped.extensions, {
    errorType: 'BAD_REQUEST',
    code: 'VALIDATION_ERROR',
    violations: [
      { field: 'minPrice', message: 'must not be greater than maxPrice' },
      { field: 'input.items[1].productId', message: 'product already ordered in an earlier line' },
    ],
  });
});

t.test('the REST validator reports in domain terms and renders back to the documented form', async (t) => {
  const errors = (list: Partial<ErrorObject>[]) => list as ErrorObject[];
  const body = violationsFrom(
    errors([
      { instancePath: '', keyword: 'type', message: 'must be object', params: {} },
      { instancePath: '', keyword: 'required', message: 'x', params: { missingProperty: 'sku' } },
      { instancePath: '/attributes/0', keyword: 'additionalProperties', message: 'x', params: { additionalProperty: 'a/b' } },
    ]),
    'body',
  );
  t.same(
    body.map((v) => [v.field, v.source]),
    [
      [[], 'input'],
      [['sku'], 'input'],
      [['attributes', '0', 'a/b'], 'input'],
    ],
  );
  t.same(body.map(restField), ['', '/sku', '/attributes/0/a~1b'], 'a body refused as a whole is "" (problem.yaml)');
  const query = violationsFrom(
    errors([{ instancePath: '/sort/0', keyword: 'pattern', message: 'must match pattern', params: {} }]),
    'query',
  );
  t.same(query.map(restField), ['query.sort.0']);
  const path = violationsFrom(
    errors([{ instancePath: '/id', keyword: 'format', message: 'must match format "uuid"', params: {} }]),
    'path',
  );
  t.same(path.map(restField), ['path.id']);
});
