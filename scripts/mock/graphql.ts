/**
 * GraphQL of the mock server: the project's schema (the SDL in schema/, through generated/) with
 * every field answered by @graphql-tools/mock, served by the server's own registerGraphQLHttp
 * (src/graphql/http.ts) over graphql-http, with the server's limits (depth, aliases, complexity) and
 * schema directives: an operation the server refuses, the mock refuses with the same errors.
 *
 * The values are @graphql-tools/mock's: random within the types (graphql-scalars' mocks for the
 * custom scalars), lists of two, except where a field takes a page size (pageSizeResolvers): a field
 * with an Int argument `size`, `limit`, `first` or `last` holds that many rows, in the list it
 * returns (`searchUsers(limit: 5)`) or in every list of the object it returns (`users(size: 5)`'s
 * `content`, a connection's `edges`), at most the argument's @constraint max (else 100). Other page
 * fields (`totalElements`, `hasNext`) stay random. Nothing is stored, so a mutation's result is not
 * what a later query reads. Every bearer token holds every role (mock-server.ts), so @authenticated
 * and @hasRole refuse only an anonymous caller.
 */
import { addMocksToSchema, createMockStore, isRef, type IMockStore } from '@graphql-tools/mock';
import { makeExecutableSchema } from '@graphql-tools/schema';
import { getDirective, type IResolvers } from '@graphql-tools/utils';
import type { FastifyInstance } from 'fastify';
import {
  defaultFieldResolver,
  getNamedType,
  getNullableType,
  isListType,
  isObjectType,
  type GraphQLArgument,
  type GraphQLFieldResolver,
  type GraphQLSchema,
} from 'graphql';
import { DateTimeMock, JSONMock } from 'graphql-scalars';
import { typeDefs } from '../../generated/graphql/typedefs.ts';
import type { Config } from '../../src/config.ts';
import { applyAuthDirectives } from '../../src/graphql/directives.auth.ts';
import { applyConstraintDirective } from '../../src/graphql/directives.constraint.ts';
import { OperationExecutor } from '../../src/graphql/execute.ts';
import { registerGraphQLHttp } from '../../src/graphql/http.ts';
import { graphqlLimits } from '../../src/graphql/limits.ts';
import { OperationPreparer } from '../../src/graphql/operation.ts';

/** The names of the arguments that set how many rows a field gives (the SDL's `size` and `limit`, Relay's `first` and `last`). */
const PAGE_SIZE_ARGUMENTS = new Set(['size', 'limit', 'first', 'last']);
/** The most rows of an argument without a declared maximum. */
const MAX_ROWS = 100;

/** A field's page-size argument: an Int named as above, with its declared @constraint max. */
function pageSizeArgument(schema: GraphQLSchema, args: readonly GraphQLArgument[]): { name: string; max: number } | undefined {
  const arg = args.find((a) => PAGE_SIZE_ARGUMENTS.has(a.name) && getNamedType(a.type).name === 'Int');
  if (!arg) return undefined;
  const declared = getDirective(schema, arg, 'constraint')?.[0]?.max as unknown;
  return { name: arg.name, max: typeof declared === 'number' ? Math.min(declared, MAX_ROWS) : MAX_ROWS };
}

/**
 * Resolvers for every field with a page-size argument: the field's value from the mock store, its
 * list (or each list of the object it returns) set to the argument's number of rows. The store keys
 * a field's value by its arguments, so asking again with the same ones gives the same rows.
 */
export function pageSizeResolvers(schema: GraphQLSchema, store: IMockStore): IResolvers {
  const resolvers: Record<string, Record<string, GraphQLFieldResolver<unknown, unknown>>> = {};
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    for (const field of Object.values(type.getFields())) {
      const size = pageSizeArgument(schema, field.args);
      if (!size) continue;
      const returned = getNullableType(field.type);
      const listFields = isObjectType(returned)
        ? Object.values(returned.getFields())
            .filter((f) => isListType(getNullableType(f.type)))
            .map((f) => f.name)
        : [];
      if (!isListType(returned) && listFields.length === 0) continue;
      resolvers[type.name] ??= {};
      resolvers[type.name]![field.name] = (parent, args: Record<string, unknown>, context, info) => {
        // Where @graphql-tools/mock's own resolver finds the field: a row of the store, or a root type's ROOT.
        const { schema: running, parentType } = info;
        const root = [running.getQueryType(), running.getMutationType(), running.getSubscriptionType()].includes(parentType);
        const owner = isRef(parent) ? parent.$ref : root ? { typeName: parentType.name, key: 'ROOT' } : undefined;
        if (!owner) return defaultFieldResolver(parent, args, context, info);
        const requested = args[size.name];
        const defaulted = requested ?? field.args.find((a) => a.name === size.name)?.defaultValue;
        const rows = Math.max(0, Math.min(size.max, typeof defaulted === 'number' ? defaulted : 2));
        const at = { typeName: owner.typeName, key: owner.key, fieldName: field.name, fieldArgs: args };
        // An undefined entry is generated by the store as the list's item type (a new row).
        const list = (length: number) => Array.from({ length }, () => undefined);
        if (isListType(returned)) {
          const current = store.get(at) as unknown[] | null;
          if (current?.length !== rows) store.set({ ...at, value: list(rows) });
          return store.get(at);
        }
        const page = store.get(at);
        if (!isRef(page)) return page;
        for (const name of listFields) {
          const current = store.get(page, name) as unknown[] | null;
          if (current?.length !== rows) store.set(page, name, list(rows));
        }
        return page;
      };
    }
  }
  return resolvers;
}

export function registerMockGraphQL(http: FastifyInstance, config: Config): void {
  const schema = makeExecutableSchema({ typeDefs });
  const store = createMockStore({ schema, mocks: { DateTime: DateTimeMock, Json: JSONMock } });
  const mocked = addMocksToSchema({ schema, store, resolvers: pageSizeResolvers(schema, store) });
  // The directives wrap the mock resolvers as they wrap the real ones (src/graphql/schema.ts), in the same order.
  const served = applyAuthDirectives(applyConstraintDirective(mocked));
  registerGraphQLHttp(http, {
    schema: served,
    preparer: new OperationPreparer(served, graphqlLimits(config)),
    executor: new OperationExecutor(served),
    context: (principal) => ({ principal }),
  });
}
