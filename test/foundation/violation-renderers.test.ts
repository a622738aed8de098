/**
 * Services name the offending input in domain terms (src/errors.ts); each transport renders the name
 * once: REST as a JSON Pointer into the body or `<in>.<name>` (components/problem.yaml), GraphQL as
 * the argument path (`input.username`, `input.tags[2]`).
 */
import t from 'tap';
import { GraphQLError } from 'graphql';
import { validationFailed, type Violation } from '../../src/errors.ts';
import { graphqlField, mapGraphQLError } from '../../src/graphql/errors.ts';
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
