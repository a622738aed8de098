/**
 * Validates the handwritten GraphQL SDL and the client SDK operations.
 *
 *   npx tsx scripts/check-sdl.ts
 *
 * 1. Reads every schema/*.graphql file (sorted by name), parses each as its own
 *    Source, concatenates the documents, runs the SDL validation buildSchema runs,
 *    builds the schema and runs validateSchema on it: the same checks, in the same
 *    helper, as `npm run generate` (scripts/generate/sdl.ts).
 * 2. Parses the schema/operations/*.graphql files (operations plus fragments) and
 *    validates them together against the schema with `validate`.
 * 3. Checks that every operation is named and that every Query, Mutation and
 *    Subscription field is used as a root field by at least one operation.
 *
 * Prints every error, one line each (`schema/posts.graphql:27:3: Unknown type
 * "Auther".`), and exits 1 on any; otherwise prints "SDL ok: N types, M operations".
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GraphQLError, type GraphQLSchema, isIntrospectionType, isSpecifiedScalarType, Kind, type OperationDefinitionNode } from 'graphql';
import settings from '../codegen.ts';
import { buildSdlSchema, graphqlErrorLine, loadOperations, readGraphqlFiles } from './generate/sdl.ts';
import { SpecError } from './generate/spec-error.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

const errors: string[] = [];

/** Runs one check; a SpecError's lines (`schema/posts.graphql:27:3: …`) are its findings. */
function attempt<T>(check: () => T): T | undefined {
  try {
    return check();
  } catch (error) {
    if (!(error instanceof SpecError)) throw error;
    errors.push(...error.message.split('\n'));
    return undefined;
  }
}

function buildSdl(): GraphQLSchema | undefined {
  const files = readGraphqlFiles(root, settings.schema);
  if (files.length === 0) {
    errors.push(`no .graphql files found for ${settings.schema}`);
    return undefined;
  }
  return attempt(() => buildSdlSchema(files).schema);
}

function checkOperations(schema: GraphQLSchema): number {
  const files = readGraphqlFiles(root, settings.documents);
  if (files.length === 0) {
    errors.push(`no .graphql files found for ${settings.documents}`);
    return 0;
  }
  const documents = attempt(() => loadOperations(schema, files));
  if (!documents) return 0;

  const operations = documents
    .flatMap(({ document }) => document.definitions)
    .filter((definition): definition is OperationDefinitionNode => definition.kind === Kind.OPERATION_DEFINITION);
  for (const operation of operations) {
    if (!operation.name) errors.push(graphqlErrorLine(new GraphQLError('every operation must be named', { nodes: operation })));
  }

  // Coverage: each root field must be the root field of some operation.
  const used = new Set<string>();
  for (const operation of operations) {
    for (const selection of operation.selectionSet.selections) {
      if (selection.kind === Kind.FIELD) used.add(`${operation.operation}.${selection.name.value}`);
    }
  }
  const roots = [
    ['query', schema.getQueryType()],
    ['mutation', schema.getMutationType()],
    ['subscription', schema.getSubscriptionType()],
  ] as const;
  for (const [kind, type] of roots) {
    if (!type) continue;
    for (const field of Object.keys(type.getFields())) {
      if (!used.has(`${kind}.${field}`)) {
        errors.push(`operation coverage: no ${kind} operation selects ${type.name}.${field}`);
      }
    }
  }
  return operations.length;
}

const schema = buildSdl();
let operationCount = 0;
if (schema && errors.length === 0) operationCount = checkOperations(schema);

if (errors.length > 0) {
  for (const message of errors) console.error(message);
  console.error(`\nSDL check failed with ${errors.length} error(s).`);
  process.exit(1);
}

const typeCount = Object.values(schema!.getTypeMap()).filter((type) => !isIntrospectionType(type) && !isSpecifiedScalarType(type)).length;
console.log(`SDL ok: ${typeCount} types, ${operationCount} operations`);
