// test-suite: once (NUL is refused at validation, before PostgreSQL text would refuse it)
/**
 * Every String and ID argument and input field, found by walking the executable schema (so a field
 * added later is swept too), refuses a NUL character as BAD_REQUEST naming the field, never
 * INTERNAL_ERROR (PostgreSQL text cannot hold U+0000). Queries and mutations go over HTTP,
 * subscriptions over the WebSocket.
 */
import t from 'tap';
import {
  getNamedType,
  getNullableType,
  isEnumType,
  isInputObjectType,
  isLeafType,
  isListType,
  isNonNullType,
  isScalarType,
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLInputType,
} from 'graphql';
import { buildContentSchema } from '../../src/content/content.graph.ts';
import { sharedServer } from '../helpers/server.ts';
import { gql } from './gql.ts';
import { wsClient } from './ws-client.ts';

const NUL_MESSAGE = 'must not contain the NUL character (U+0000)';
const TEXT = new Set(['String', 'ID']);

/** A value of `type` that passes type coercion (constraint violations elsewhere are fine: all are reported together). */
function sample(type: GraphQLInputType): unknown {
  const inner = getNullableType(type);
  if (isListType(inner)) return [sample(inner.ofType)];
  if (isInputObjectType(inner)) {
    const value: Record<string, unknown> = {};
    for (const field of Object.values(inner.getFields())) if (isNonNullType(field.type)) value[field.name] = sample(field.type);
    return value;
  }
  if (isEnumType(inner)) return inner.getValues()[0]!.name;
  switch (inner.name) {
    case 'Int':
    case 'Float':
      return 1;
    case 'Boolean':
      return true;
    case 'DateTime':
      return '2026-01-01T00:00:00Z';
    case 'Json':
      return {};
    default:
      return 'x';
  }
}

interface Target {
  /** Violation path as the server reports it: `input.tags[0]`. */
  path: string;
  /** Builds the argument value with NUL at this position. */
  build: () => unknown;
}

/** Every position inside a value of `type` that holds a String or ID. */
function targets(type: GraphQLInputType, path: string, seen = new Set<string>()): Target[] {
  const inner = getNullableType(type);
  if (isListType(inner)) return targets(inner.ofType, `${path}[0]`, seen).map((tg) => ({ path: tg.path, build: () => [tg.build()] }));
  if (isInputObjectType(inner)) {
    if (seen.has(inner.name)) return [];
    const next = new Set(seen).add(inner.name);
    return Object.values(inner.getFields()).flatMap((field) =>
      targets(field.type, `${path}.${field.name}`, next).map((tg) => ({
        path: tg.path,
        build: () => ({ ...(sample(inner) as object), [field.name]: tg.build() }),
      })),
    );
  }
  if (isScalarType(inner) && TEXT.has(inner.name)) return [{ path, build: () => 'bad\u0000value' }];
  return [];
}

interface Case {
  operation: 'query' | 'mutation' | 'subscription';
  field: GraphQLField<unknown, unknown>;
  arg: GraphQLArgument;
  target: Target;
}

const schema = buildContentSchema();
const cases: Case[] = [];
for (const operation of ['query', 'mutation', 'subscription'] as const) {
  const root = { query: schema.getQueryType(), mutation: schema.getMutationType(), subscription: schema.getSubscriptionType() }[operation];
  for (const field of Object.values(root?.getFields() ?? {})) {
    for (const arg of field.args) for (const target of targets(arg.type, arg.name)) cases.push({ operation, field, arg, target });
  }
}

function document({ operation, field }: Case): string {
  const declared = field.args.map((a) => `$${a.name}: ${String(a.type)}`).join(', ');
  const passed = field.args.map((a) => `${a.name}: $${a.name}`).join(', ');
  const selection = isLeafType(getNamedType(field.type)) ? '' : ' { __typename }';
  return `${operation} Sweep${declared ? `(${declared})` : ''} { ${field.name}${passed ? `(${passed})` : ''}${selection} }`;
}

function variables(c: Case): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const a of c.field.args) if (isNonNullType(a.type)) values[a.name] = sample(a.type);
  values[c.arg.name] = c.target.build();
  return values;
}

t.test('the sweep covers the string arguments of every operation type', async (t) => {
  const names = (op: Case['operation']) => new Set(cases.filter((c) => c.operation === op).map((c) => `${c.field.name}:${c.target.path}`));
  t.ok(names('query').has('user:id'));
  t.ok(names('query').has('searchUsers:query'));
  t.ok(names('mutation').has('createUser:input.displayName'));
  t.ok(names('mutation').has('createPost:input.tags[0]'));
  t.ok(names('subscription').has('commentAdded:postId'));
});

t.test('NUL in any String or ID argument is BAD_REQUEST naming it', async (t) => {
  const server = await sharedServer();
  const admin = await server.token('root', ['ADMIN']);

  for (const c of cases.filter((c) => c.operation !== 'subscription')) {
    const name = `${c.field.name} ${c.target.path}`;
    const r = await gql(server, document(c), variables(c), admin);
    const errors: any[] = r.body.errors ?? [];
    t.notOk(
      errors.some((e) => e.extensions?.errorType === 'INTERNAL_ERROR'),
      `${name}: no INTERNAL_ERROR`,
    );
    const violation = errors.flatMap((e) => (e.extensions?.errorType === 'BAD_REQUEST' ? (e.extensions.violations ?? []) : []));
    t.ok(
      violation.some((v: any) => v.field === c.target.path && v.message === NUL_MESSAGE),
      `${name}: the NUL violation is on ${c.target.path}`,
    );
  }

  const client = wsClient(t, server.baseUrl, admin);
  for (const c of cases.filter((c) => c.operation === 'subscription')) {
    const errors = await new Promise<any[]>((resolve, reject) => {
      const received: any[] = [];
      client.subscribe(
        { query: document(c), variables: variables(c) },
        {
          next: (value) => received.push(...(value.errors ?? [])),
          error: (error) =>
            Array.isArray(error) ? resolve(error) : reject(new Error(`subscription ended without errors: ${String(error)}`)),
          complete: () => resolve(received),
        },
      );
    });
    t.ok(
      errors.some(
        (e) =>
          e.extensions?.errorType === 'BAD_REQUEST' &&
          e.extensions.violations?.some((v: any) => v.field === c.target.path && v.message === NUL_MESSAGE),
      ),
      `subscription ${c.field.name} ${c.target.path}: BAD_REQUEST naming the field (${JSON.stringify(errors)})`,
    );
  }
});
