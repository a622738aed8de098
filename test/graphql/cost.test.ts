/**
 * The compiled cost estimate (src/graphql/cost.ts) gives exactly what operationComplexity, the
 * library's walk, gives: the same number or the same null, for every document, operationName and
 * variables tried here, fixed ones and drawn ones.
 */
import fc from 'fast-check';
import {
  buildSchema,
  getNamedType,
  isCompositeType,
  isObjectType,
  isUnionType,
  parse,
  type GraphQLCompositeType,
  type GraphQLSchema,
} from 'graphql';
import t, { type Test } from 'tap';
import { buildContentSchema } from '../../src/content/content.graph.ts';
import { compileCost } from '../../src/graphql/cost.ts';
import { operationComplexity } from '../../src/graphql/limits.ts';
import { assertProperty, runsFor } from '../helpers/random.ts';

const content = buildContentSchema();

/** Small, with an interface and a union, so the per-possible-type sums are exercised. */
const abstract = buildSchema(`
  interface Node { id: ID! }
  interface Named { name: String }
  type User implements Node & Named {
    id: ID!
    name: String
    posts(size: Int = 10, page: Int = 0): PostConnection!
    followers(limit: Int = 10): [User!]!
    tags: [String!]!
    friend: User
  }
  type Post implements Node & Named {
    id: ID!
    name: String
    author: User!
    comments(size: Int! = 5): CommentConnection!
  }
  type Comment implements Node {
    id: ID!
    body: String
    replies(limit: Int): [Comment!]!
  }
  type PostConnection { content: [Post!]! totalElements: Int! }
  type CommentConnection { content: [Comment!]! }
  type UserConnection { content: [User!]! totalElements: Int! }
  union SearchResult = User | Post | Comment
  input Filter { size: Int, names: [String!] }
  type Query {
    node(id: ID!): Node
    nodes(ids: [ID!]!): [Node]!
    named: [Named!]!
    search(query: String!, limit: Int = 5): [SearchResult!]!
    users(size: Int = 20, filter: Filter): UserConnection!
    user(id: ID!): User
    feed(size: Int!): PostConnection!
  }
  type Mutation { like(id: ID!): Post }
`);

type Variables = Record<string, unknown> | null | undefined;

function both(schema: GraphQLSchema, query: string, variables: Variables, operationName?: string | null) {
  const document = parse(query);
  return {
    compiled: compileCost(schema, document, operationName)(variables),
    library: operationComplexity(schema, document, variables, operationName),
  };
}

/** Asserts the two agree and returns the common answer, for the cases that also pin it. */
function same(t: Test, schema: GraphQLSchema, query: string, variables: Variables, operationName?: string | null): number | null {
  const { compiled, library } = both(schema, query, variables, operationName);
  t.equal(compiled, library, `${query} with ${JSON.stringify(variables)}${operationName === undefined ? '' : ` as ${operationName}`}`);
  return compiled;
}

t.test('the content schema: sizes and limits from literals, variables and defaults', async (t) => {
  const feed =
    'query Feed($users: Int!, $posts: Int!) { users(size: $users) { content { id username posts(size: $posts) { content { id title author { id username } } } } } }';
  // Scalars cost 0: author { id username } = 1; a post = 1 (its row) + 1 = 2; posts(size: 5) = 1 + 5 × 2 = 11;
  // a user = 1 + 11 = 12; users(size: 5) = 1 + 5 × 12 = 61.
  t.equal(same(t, content, feed, { users: 5, posts: 5 }), 61);
  t.equal(same(t, content, feed, { users: 2, posts: 7 }), 1 + 2 * (1 + (1 + 7 * (1 + 1))));
  t.equal(same(t, content, feed, { users: 5 }), null, 'a missing non-null variable does not coerce');
  t.equal(same(t, content, feed, { users: 'five', posts: 5 }), null, 'nor does a string for an Int');
  t.equal(same(t, content, feed, { users: null, posts: 5 }), null, 'nor null for an Int!');
  t.equal(same(t, content, feed, null), null);

  const optional = 'query($n: Int) { users(size: $n) { content { id } } searchUsers(query: "a", limit: $n) { id } }';
  t.equal(same(t, content, optional, {}), 1 + 20 * 1 + 1 + 10 * 0, 'missing: the arguments keep their defaults');
  t.equal(same(t, content, optional, { n: null }), 1 + 20 * 1 + 1 + 10 * 0, 'null: the defaults as well');
  t.equal(same(t, content, optional, { n: 3 }), 1 + 3 * 1 + 1 + 3 * 0);
  t.equal(same(t, content, optional, { n: 0 }), 2);
  t.equal(same(t, content, optional, undefined), 1 + 20 * 1 + 1 + 10 * 0);

  const defaulted = 'query($n: Int = 4) { users(size: $n) { content { id followers(limit: $n) { id } } } }';
  t.equal(same(t, content, defaulted, {}), 1 + 4 * (1 + (1 + 4 * 0)));
  t.equal(same(t, content, defaulted, { n: 2 }), 1 + 2 * (1 + (1 + 2 * 0)));
  t.equal(same(t, content, defaulted, { n: null }), 1 + 20 * (1 + (1 + 10 * 0)), 'an explicit null overrides the variable default');

  t.equal(same(t, content, '{ users { content { followers { id } } } }', {}), 1 + 20 * (1 + 1), 'constants: rows of ids cost their fetch');
  t.equal(same(t, content, '{ users(size: 100) { content { followers { id } } } }', {}), 201, 'the limits test value');
  t.equal(same(t, content, '{ users(size: 97) { content { id } } searchUsers(query: "a", limit: 5) { id } }', { unused: 1 }), 1 + 97 + 1);
  t.equal(same(t, content, '{ __typename __schema { types { name fields { name } } } }', {}), 0, 'introspection is free');
  t.equal(same(t, content, 'query($n: String!) { __type(name: $n) { name } }', { n: 'User' }), 0);
  t.equal(same(t, content, 'query($n: String!) { __type(name: $n) { name } }', {}), null);
});

t.test('the abstract schema: interfaces, unions, fragments and directives', async (t) => {
  const cases: [string, Variables[], (string | null | undefined)[]?][] = [
    ['{ node(id: "1") { id ... on User { name posts(size: 3) { content { id } } } ... on Post { name author { id } } } }', [{}]],
    [
      'query($n: Int) { node(id: "1") { id ... on User { posts(size: $n) { content { id } } } ... on Comment { replies(limit: $n) { id } } } }',
      [{}, { n: 1 }, { n: 50 }, { n: null }, { n: -3 }, { n: 2.5 }, { n: '7' }],
    ],
    [
      'query($n: Int) { search(query: "x", limit: $n) { __typename ... on User { id followers { id } } ... on Named { name } ...P } } fragment P on Post { id author { id } }',
      [{}, { n: 2 }, { n: 0 }, { n: null }],
    ],
    [
      'query($f: Boolean!, $n: Int) { named { ... on User @include(if: $f) { posts(size: $n) { totalElements } } ... on Post @skip(if: $f) { comments { content { id } } } } }',
      [{ f: true }, { f: false }, { f: true, n: 9 }, {}, { f: null }, { f: 'yes' }],
    ],
    [
      'query($f: Boolean = false, $g: Boolean!) { user(id: "1") { id @include(if: $f) friend @skip(if: $g) { id friend { name } } ...U @include(if: $g) @skip(if: $f) } } fragment U on User { tags followers(limit: 3) { id } }',
      [{ g: true }, { g: false }, { f: true, g: true }, { f: null, g: true }, { g: true, f: 'no' }],
    ],
    ['{ user(id: "1") { id @include(if: false) name @skip(if: true) tags @include(if: true) } }', [{}]],
    [
      '{ users { content { ...A ...A ... on User { ...A } } } } fragment A on User { id posts { content { ...B } } } fragment B on Post { id author { ...C } } fragment C on Named { name }',
      [{}],
    ],
    [
      'query Q($n: Int) { users(size: $n) { totalElements } } query R($n: Int!) { feed(size: $n) { content { id } } } mutation M { like(id: "1") { id } }',
      [{}, { n: 4 }, { n: null }, { n: 'x' }],
      [undefined, null, '', 'Q', 'R', 'M', 'S'],
    ],
    ['{ users { totalElements } } mutation { like(id: "1") { id author { name } } }', [{}], [undefined, 'X']],
    [
      'query($n: Int!) { users(filter: { size: $n, names: ["a"] }) { totalElements } feed(size: $n) { totalElements } }',
      [{ n: 1 }, {}, { n: 3.5 }],
    ],
    [
      'query($ids: [ID!]!) { nodes(ids: $ids) { id ... on Comment { replies { body } } } }',
      [{ ids: ['1'] }, { ids: [] }, { ids: [null] }, { ids: '1' }, {}],
    ],
    ['{ search(query: "x") { nope ... on Nope { id } ...Missing } user(id: "1") { missing } }', [{}]],
    ['query($n: Int) { search(query: "x", limit: $n) { constructor } }', [{}, { n: 1 }]],
    ['query($f: Boolean) { user(id: "1") { missing @include(if: $f) ...Gone @skip(if: $f) id } }', [{}, { f: true }, { f: null }]],
  ];
  for (const [query, variableSets, names = [undefined]] of cases) {
    for (const variables of variableSets) for (const name of names) same(t, abstract, query, variables, name);
  }
  t.equal(same(t, abstract, cases[7]![0], { n: 4 }, 'Q'), 1 + 4 * 0, 'a count is one fetch');
  t.equal(same(t, abstract, cases[7]![0], { n: 4 }, 'R'), 1 + 4 * 1);
  t.equal(same(t, abstract, cases[7]![0], { n: 4 }), 1 + 5 + 1, 'no operationName: every operation is summed');
  t.equal(same(t, abstract, cases[7]![0], { n: null }), null, 'one operation whose variables fail is enough');
  t.equal(same(t, abstract, cases[7]![0], { n: 4 }, 'S'), 0, 'no operation of that name');
  t.equal(same(t, abstract, cases[8]![0], {}, 'X'), null, 'a name beside an anonymous operation');
  t.equal(same(t, abstract, cases[3]![0], { f: 'yes' }), null, 'an @include value that does not coerce');
  t.equal(same(t, abstract, cases[12]![0], {}), null, 'a union "field" found on Object.prototype');
});

t.test('the abstract schema: the maximum over possible types', async (t) => {
  // Scalars are free. User: 1 + 2 × 1 (posts); Post: 1 (author); Comment: 0. The node field takes the most expensive.
  const query =
    'query($n: Int) { node(id: "1") { id ... on User { name posts(size: $n) { content { id } } } ... on Node { __typename } ... on Post { author { id } } } }';
  t.equal(same(t, abstract, query, { n: 2 }), 1 + (1 + 2 * 1));
  t.equal(same(t, abstract, query, { n: 0 }), 1 + 1, 'size 0: User costs no more than Post');
});

t.test('an explicit null for a non-null argument whose variable has a default', async (t) => {
  const query = 'query($n: Int = 3) { feed(size: $n) { totalElements } }';
  t.equal(same(t, abstract, query, {}), 1 + 3 * 0);
  t.equal(same(t, abstract, query, { n: null }), null);
  t.equal(
    same(t, abstract, 'query($s: Int = 2) { user(id: "1") { posts { content { comments(size: $s) { content { id } } } } } }', { s: null }),
    null,
  );
});

t.test('costs past the largest double: Infinity, and 0 × Infinity is no estimate (null)', async (t) => {
  const nested = (limit: string) => `${'followers(limit: $big) { '.repeat(36)}id${' }'.repeat(36)}`.replace('$big', limit);
  const query = 'query($big: Int!, $outer: Int!) { user(id: "1") { ' + nested('$outer') + ' } }';
  t.equal(same(t, abstract, query, { big: 2_147_483_647, outer: 1 }), Infinity);
  t.equal(same(t, abstract, query, { big: 2_147_483_647, outer: 0 }), null);
  t.equal(same(t, abstract, query, { big: 2, outer: 0 }), 2);
});

t.test('sums past 2^53 round as the library adds them, in selection order', async (t) => {
  const query =
    'query($n: Int, $m: Int) { users(size: $n) { content { followers(limit: $m) { friend { id } } } } a: user(id: "1") { friend { id } } b: user(id: "1") { friend { id } } }';
  const users = 1 + 2_147_483_647 * (2 + 8_388_607);
  t.not(users + 2 + 2, users + (2 + 2), 'values where the order shows');
  t.equal(same(t, abstract, query, { n: 2_147_483_647, m: 8_388_607 }), users + 2 + 2);
});

t.test('fragments: a spread inside itself adds nothing, a reused one counts each time', async (t) => {
  const cycle =
    'query($n: Int) { user(id: "1") { ...A } } fragment A on User { id friend { ...B } } fragment B on User { followers(limit: $n) { id friend { id } ...A } }';
  t.equal(same(t, abstract, cycle, { n: 2 }), 1 + (1 + (1 + 2 * 1)));
  t.equal(same(t, abstract, cycle, {}), 1 + (1 + (1 + 10 * 1)));
  const reused =
    '{ users { content { ...A ...A ... on User { ...A } } } } fragment A on User { id posts { content { ...B } } } fragment B on Post { id author { ...C } } fragment C on Named { name }';
  // C = 0 (a scalar), B = 1 + C = 1 (author), A = 1 + 10 × (1 + B) = 21 (posts), three times under a user's row.
  t.equal(same(t, abstract, reused, {}), 1 + 20 * (1 + 3 * 21));
});

t.test('documents at the library node cap: the same answer, through the fallback', async (t) => {
  const repeated = (n: number) => Array.from({ length: n }, (_, i) => `u${i}: user(id: "${i}") { name }`).join(' ');
  t.equal(same(t, abstract, `{ ${repeated(4_999)} __typename }`, {}), 4_999 * 1, '9,999 selections');
  t.equal(same(t, abstract, `{ ${repeated(5_000)} }`, {}), null, '10,000 selections');
  // Skipped selections are counted but their children are not, so the variables decide.
  const friends = Array.from({ length: 5_000 }, (_, i) => `f${i}: friend { name }`).join(' ');
  const skippable = `query($s: Boolean!) { user(id: "x") @skip(if: $s) { ${friends} } }`;
  t.equal(same(t, abstract, skippable, { s: true }), 0);
  t.equal(same(t, abstract, skippable, { s: false }), null);
  const doubling = Array.from({ length: 14 }, (_, i) => `fragment F${i} on User { id ...F${i + 1} ...F${i + 1} }`).join(' ');
  t.equal(
    same(t, abstract, `query($n: Int) { users(size: $n) { content { ...F0 } } } ${doubling} fragment F14 on User { id }`, { n: 1 }),
    null,
  );
});

/** Builds a document for a tape of drawn numbers: fields, arguments, directives and fragments of the abstract schema. */
function drawnDocument(tape: readonly number[]): string {
  let at = 0;
  const next = (n: number) => tape[at++ % tape.length]! % n;
  const pick = <T>(items: readonly T[]): T => items[next(items.length)]!;
  const sizes = ['', '$n', '$m', '$k', '2', '0', 'null', '$u'];
  const conditions = ['', '', '', ' @include(if: $f)', ' @skip(if: $g)', ' @include(if: true)', ' @skip(if: $f) @include(if: $g)'];
  const selections = (type: GraphQLCompositeType, depth: number): string => {
    const count = 1 + next(3);
    const out: string[] = [];
    for (let i = 0; i < count; i++) {
      const directive = pick(conditions);
      const kind = next(5);
      if (kind === 0 && depth < 4) {
        const possible = isObjectType(type) ? [type.name] : abstract.getPossibleTypes(type).map((p) => p.name);
        const condition = pick([...possible, 'Node', 'Named', 'SearchResult']);
        out.push(`... on ${condition}${directive} { ${selections(abstract.getType(condition) as GraphQLCompositeType, depth + 1)} }`);
      } else if (kind === 1 && depth < 4 && type.name === 'User') {
        out.push(`...UserBits${directive}`);
      } else if (isUnionType(type)) {
        out.push(`__typename${directive}`);
      } else {
        const field = pick(Object.values(type.getFields()));
        const args = field.args.map((arg) => {
          if (arg.name === 'size' || arg.name === 'limit') {
            const size = pick(sizes);
            return size && `${arg.name}: ${size}`;
          }
          if (arg.name === 'id') return 'id: "1"';
          if (arg.name === 'ids') return 'ids: ["1"]';
          if (arg.name === 'query') return 'query: "q"';
          return '';
        });
        const list = args.filter(Boolean).join(', ');
        const named = getNamedType(field.type);
        const inner =
          isCompositeType(named) && depth < 4 ? ` { ${selections(named, depth + 1)} }` : isCompositeType(named) ? ' { __typename }' : '';
        out.push(`${field.name}${list ? `(${list})` : ''}${directive}${inner}`);
      }
    }
    return out.join(' ');
  };
  const root = selections(abstract.getQueryType()!, 0);
  return `query($n: Int, $m: Int = 3, $k: Int!, $f: Boolean!, $g: Boolean = true) { ${root} } fragment UserBits on User { id posts(size: $m) { content { id } } }`;
}

/** Mostly values that coerce (k and f are non-null), some that do not. */
const drawnVariables = fc.record(
  {
    n: fc.oneof({ arbitrary: fc.integer({ min: -3, max: 2_000_000_000 }), weight: 6 }, fc.constant(null), fc.constant('x')),
    m: fc.oneof(fc.integer({ min: 0, max: 100 }), fc.constant(null)),
    k: fc.oneof({ arbitrary: fc.integer({ min: 0, max: 100 }), weight: 8 }, fc.constant(null), fc.double()),
    f: fc.oneof({ arbitrary: fc.boolean(), weight: 8 }, fc.constant(null)),
    g: fc.oneof(fc.boolean(), fc.constant(null)),
  },
  { requiredKeys: ['k', 'f'] },
);

t.test('drawn documents and variables give the library answer', async (t) => {
  const answers = { numbers: 0, nulls: 0 };
  await assertProperty(
    fc.property(
      fc.array(fc.nat(), { minLength: 20, maxLength: 80 }),
      fc.array(drawnVariables, { minLength: 1, maxLength: 6 }),
      (tape, variableSets) => {
        const query = drawnDocument(tape);
        const document = parse(query);
        const compiled = compileCost(abstract, document, null);
        for (const variables of variableSets) {
          const library = operationComplexity(abstract, document, variables, null);
          if (compiled(variables) !== library)
            throw new Error(`${query} with ${JSON.stringify(variables)}: ${compiled(variables)} ≠ ${library}`);
          answers[library === null ? 'nulls' : 'numbers']++;
        }
      },
    ),
    300,
  );
  t.ok(answers.numbers > 100, `${answers.numbers} numbers compared`);
  t.ok(answers.nulls > 20, `${answers.nulls} nulls compared`);
});

t.test('drawn sizes and flags on the content schema give the library answer', async (t) => {
  const query = `query($a: Int, $b: Int = 5, $c: Int!, $f: Boolean!, $g: Boolean = false) {
    users(size: $a) { content { id followers(limit: $b) @include(if: $f) { id } posts(size: $c) { content { id tags { name } comments(size: $b) @skip(if: $g) { content { id } } } } } }
    searchUsers(query: "a", limit: $c) @skip(if: $f) { id }
  }`;
  const document = parse(query);
  const compiled = compileCost(content, document, undefined);
  await assertProperty(
    fc.property(
      fc.record(
        {
          a: fc.oneof(fc.integer({ min: -5, max: 500 }), fc.constant(null)),
          b: fc.oneof(fc.integer({ min: 0, max: 100 }), fc.constant(null)),
          c: fc.oneof(fc.integer({ min: 0, max: 100 }), fc.constant(null), fc.constant('1')),
          f: fc.oneof(fc.boolean(), fc.constant(null)),
          g: fc.boolean(),
        },
        { requiredKeys: [] },
      ),
      (variables) => compiled(variables) === operationComplexity(content, document, variables, undefined),
    ),
    500,
  );
  t.pass(`${runsFor(500)} drawn variable sets`);
});
