/**
 * GraphQL requests drawn from the schema: a root field of Query or Mutation with arguments of the
 * declared types (or of wrong ones, or as variables of wrong types), a selection of its fields a few
 * levels down, with aliases, fragments and inline fragments; and what the schema does not describe:
 * text that does not parse, deep nesting, unknown fields, batches, a mutation over GET, envelopes that
 * are not a GraphQL request at all.
 */
import fc from 'fast-check';
import {
  getNamedType,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  isUnionType,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLObjectType,
  type GraphQLSchema,
} from 'graphql';
import type { Caller, FuzzRequest, IdPool } from './rest-requests.ts';
import { hostileStrings } from './schema-values.ts';

/** A literal of `type` written as GraphQL source, valid for it. */
function literal(type: GraphQLInputType, ids: string[], depth: number): fc.Arbitrary<string> {
  if (isNonNullType(type)) return literal(type.ofType, ids, depth);
  if (isListType(type)) return fc.array(literal(type.ofType, ids, depth + 1), { maxLength: 3 }).map((items) => `[${items.join(', ')}]`);
  if (isEnumType(type)) return fc.constantFrom(...type.getValues().map((v) => v.name));
  if (isInputObjectType(type)) {
    if (depth > 3) return fc.constant('{}');
    const fields = Object.values(type.getFields());
    const required = fields.filter((f) => isNonNullType(f.type) && f.defaultValue === undefined);
    const optional = fields.filter((f) => !required.includes(f));
    return fc
      .tuple(
        fc.tuple(...required.map((f) => literal(f.type, ids, depth + 1).map((v) => `${f.name}: ${v}`))),
        fc
          .subarray(optional)
          .chain((chosen) => fc.tuple(...chosen.map((f) => literal(f.type, ids, depth + 1).map((v) => `${f.name}: ${v}`)))),
      )
      .map(([a, b]) => `{${[...a, ...b].join(', ')}}`);
  }
  if (isScalarType(type)) {
    switch (type.name) {
      case 'Int':
        return fc.integer({ min: -5, max: 200 }).map(String);
      case 'Float':
        return fc.double({ min: -10, max: 10, noNaN: true }).map((n) => String(Number.isInteger(n) ? `${n}.5` : n));
      case 'Boolean':
        return fc.boolean().map(String);
      case 'ID':
        return fc
          .oneof(fc.constantFrom(...(ids.length ? ids : ['1'])), fc.uuid(), fc.constantFrom(...hostileStrings.slice(0, 8)))
          .map((s) => JSON.stringify(s));
      case 'Json':
        return fc.jsonValue({ maxDepth: 3 }).map((v) => toGraphqlValue(v));
      default:
        return fc.oneof(fc.string({ maxLength: 20 }), fc.constantFrom(...hostileStrings)).map((s) => JSON.stringify(s));
    }
  }
  return fc.constant('null');
}

/** A JSON value as a GraphQL value literal (object keys unquoted). */
function toGraphqlValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return `[${value.map(toGraphqlValue).join(', ')}]`;
  if (typeof value === 'object') {
    return `{${Object.entries(value as Record<string, unknown>)
      .filter(([k]) => /^[_A-Za-z][_0-9A-Za-z]*$/.test(k))
      .map(([k, v]) => `${k}: ${toGraphqlValue(v)}`)
      .join(', ')}}`;
  }
  return JSON.stringify(value);
}

/** A selection set for `type`, `depth` levels at most. */
function selection(schema: GraphQLSchema, typeName: string, depth: number, ids: string[]): fc.Arbitrary<string> {
  const type = schema.getType(typeName);
  if (isUnionType(type) || isInterfaceType(type)) {
    const members = [...(isUnionType(type) ? type.getTypes() : schema.getPossibleTypes(type))];
    return fc
      .subarray(members, { minLength: 1 })
      .chain((chosen) => fc.tuple(...chosen.map((m) => selection(schema, m.name, depth, ids).map((s) => `... on ${m.name} ${s}`))))
      .map((parts) => `{ __typename ${parts.join(' ')} }`);
  }
  if (!isObjectType(type)) return fc.constant('');
  const fields = Object.values(type.getFields());
  const leaves = fields.filter((f) => !isObjectLike(f));
  const nested = depth > 0 ? fields.filter((f) => isObjectLike(f)) : [];
  return fc
    .tuple(
      fc.subarray(leaves, { minLength: Math.min(1, leaves.length) }),
      fc.subarray(nested, { maxLength: Math.min(2, nested.length) }),
      fc.boolean(),
    )
    .chain(([leafFields, nestedFields, alias]) =>
      fc
        .tuple(
          ...nestedFields.map((f) =>
            fc
              .tuple(argumentsFor(f, ids), selection(schema, getNamedType(f.type).name, depth - 1, ids))
              .map(([args, sub]) => `${f.name}${args} ${sub}`),
          ),
        )
        .map((parts) => `{ ${leafFields.map((f, i) => (alias && i === 0 ? `first: ${f.name}` : f.name)).join(' ')} ${parts.join(' ')} }`),
    );
}

function isObjectLike(field: GraphQLField<unknown, unknown>): boolean {
  const named = getNamedType(field.type);
  return isObjectType(named) || isInterfaceType(named) || isUnionType(named);
}

function argumentsFor(field: GraphQLField<unknown, unknown>, ids: string[]): fc.Arbitrary<string> {
  if (!field.args.length) return fc.constant('');
  const required = field.args.filter((a) => isNonNullType(a.type) && a.defaultValue === undefined);
  const optional = field.args.filter((a) => !required.includes(a));
  return fc
    .tuple(
      fc.tuple(...required.map((a) => literal(a.type, ids, 0).map((v) => `${a.name}: ${v}`))),
      fc.subarray(optional).chain((chosen) => fc.tuple(...chosen.map((a) => literal(a.type, ids, 0).map((v) => `${a.name}: ${v}`)))),
    )
    .map(([a, b]) => (a.length + b.length ? `(${[...a, ...b].join(', ')})` : ''));
}

function rootField(schema: GraphQLSchema, root: GraphQLObjectType, ids: string[]): fc.Arbitrary<{ text: string; label: string }> {
  const fields = Object.values(root.getFields());
  return fc.constantFrom(...fields).chain((field) =>
    fc
      .tuple(argumentsFor(field, ids), isObjectLike(field) ? selection(schema, getNamedType(field.type).name, 2, ids) : fc.constant(''))
      .map(([args, sub]) => ({
        label: `graphql ${root.name}.${field.name}`,
        text: `${root === schema.getMutationType() ? 'mutation' : 'query'} { ${field.name}${args} ${sub} }`,
      })),
  );
}

/** Documents that are wrong in ways no schema describes. */
const brokenDocuments = fc.constantFrom(
  '{',
  'query {',
  '{ users { content { id } } } extra',
  '{ noSuchField }',
  '{ users(size: "ten") { totalElements } }',
  '{ users { content { noSuchField } } }',
  `{ ${'a: __typename '.repeat(500)} }`,
  `{ users { content { ${'followers { '.repeat(12)}id${' }'.repeat(12)} } } }`,
  `query Q($v: Json) { __typename }`,
  'fragment F on User { ...F } { users { content { ...F } } }',
  'subscription { postCreated { id } }',
  '\u0000',
  '{ __schema { types { name } } }',
  '[[[[[[[[',
  `{ users { content { id ${'... on User { id '.repeat(60)}${'} '.repeat(60)}} } }`,
);

interface Envelope {
  method: 'GET' | 'POST';
  body?: string;
  query?: string;
  contentType?: string;
}

const envelopes = fc.constantFrom<Envelope>(
  { method: 'POST', body: '{}', contentType: 'application/json' },
  { method: 'POST', body: '{"query": 1}', contentType: 'application/json' },
  { method: 'POST', body: '{"query": "{ __typename }", "variables": []}', contentType: 'application/json' },
  { method: 'POST', body: '{"query": "{ __typename }", "variables": "x"}', contentType: 'application/json' },
  { method: 'POST', body: '[{"query": "{ __typename }"}, {"query": "{ __typename }"}]', contentType: 'application/json' },
  { method: 'POST', body: '{"query": "{ __typename }"', contentType: 'application/json' },
  { method: 'POST', body: 'query=%7B__typename%7D', contentType: 'application/x-www-form-urlencoded' },
  { method: 'POST', body: '{ __typename }', contentType: 'application/graphql' },
  { method: 'POST', body: '{"query": "{ __typename }", "operationName": 5}', contentType: 'application/json' },
  { method: 'POST', body: '{"query": "{ __typename }", "extensions": "x"}', contentType: 'application/json' },
  { method: 'GET', query: 'query=mutation%20%7B%20__typename%20%7D' },
  { method: 'GET', query: '' },
  { method: 'GET', query: 'query=%7B__typename%7D&variables=%7Bnope' },
  { method: 'GET', query: 'query=%E0%A4%A' },
);

function callerArbitrary(): fc.Arbitrary<Caller> {
  return fc.constantFrom<Caller>('anonymous', 'user', 'admin');
}

function post(label: string, caller: Caller, query: string, variables?: unknown): FuzzRequest {
  return {
    kind: 'graphql',
    label,
    method: 'POST',
    path: '/graphql',
    caller,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(variables === undefined ? { query } : { query, variables }),
  };
}

export function graphqlRequests(schema: GraphQLSchema, ids: IdPool): fc.Arbitrary<FuzzRequest> {
  const known = [...(ids.id ?? []), ...(ids.userId ?? [])];
  const roots = [schema.getQueryType(), schema.getMutationType()].filter((r): r is GraphQLObjectType => Boolean(r));
  const fromSchema = fc
    .tuple(fc.constantFrom(...roots), callerArbitrary())
    .chain(([root, caller]) => rootField(schema, root, known).map(({ text, label }) => post(label, caller, text)));
  const withBadVariables = fc.tuple(callerArbitrary(), fc.jsonValue({ maxDepth: 3 })).map(([caller, value]) =>
    post('graphql variables', caller, 'query Q($id: ID!, $size: Int) { user(id: $id) { id } users(size: $size) { totalElements } }', {
      id: value,
      size: value,
    }),
  );
  const broken = fc.tuple(callerArbitrary(), brokenDocuments).map(([caller, text]) => post('graphql broken document', caller, text));
  const enveloped = fc.tuple(callerArbitrary(), envelopes).map(([caller, e]): FuzzRequest => ({
    kind: 'graphql',
    label: 'graphql envelope',
    method: e.method,
    path: e.method === 'GET' ? `/graphql?${e.query}` : '/graphql',
    caller,
    headers: { ...(e.contentType ? { 'content-type': e.contentType } : {}), accept: 'application/graphql-response+json, application/json' },
    ...(e.body !== undefined ? { body: e.body } : {}),
  }));
  return fc.oneof(
    { weight: 6, arbitrary: fromSchema },
    { weight: 1, arbitrary: withBadVariables },
    { weight: 1, arbitrary: broken },
    { weight: 1, arbitrary: enveloped },
  );
}
