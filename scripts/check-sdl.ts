/**
 * Validates the handwritten GraphQL SDL and the client SDK operations.
 *
 *   npx tsx scripts/check-sdl.ts
 *
 * 1. Reads every schema/*.graphql file (sorted by name), checks each one parses,
 *    concatenates them and builds the schema with buildSchema (SDL validation on).
 * 2. Runs validateSchema on the result.
 * 3. Parses all schema/operations/*.graphql files together (operations plus
 *    fragments) and validates them against the schema with `validate`.
 * 4. Checks that every Query, Mutation and Subscription field is used as a root
 *    field by at least one operation.
 *
 * Prints every error and exits 1 on any; otherwise prints
 * "SDL ok: N types, M operations".
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  buildSchema,
  GraphQLError,
  type GraphQLSchema,
  isIntrospectionType,
  isSpecifiedScalarType,
  Kind,
  type OperationDefinitionNode,
  parse,
  Source,
  validate,
  validateSchema,
} from 'graphql';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const schemaDir = join(root, 'schema');
const operationsDir = join(schemaDir, 'operations');

const errors: string[] = [];

function fail(context: string, error: unknown): void {
  if (error instanceof GraphQLError) {
    errors.push(`${context}: ${error.toString()}`);
  } else if (error instanceof Error) {
    errors.push(`${context}: ${error.message}`);
  } else {
    errors.push(`${context}: ${String(error)}`);
  }
}

function graphqlFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.graphql'))
    .map((entry) => join(dir, entry.name))
    .sort();
}

function readSources(files: string[]): Source[] {
  return files.map((file) => new Source(readFileSync(file, 'utf8'), relative(root, file)));
}

/** Parse each file on its own so syntax errors name the right file. */
function parseEach(sources: Source[]): boolean {
  let ok = true;
  for (const source of sources) {
    try {
      parse(source);
    } catch (error) {
      ok = false;
      fail(`syntax error in ${source.name}`, error);
    }
  }
  return ok;
}

function buildSdl(): GraphQLSchema | undefined {
  const files = graphqlFiles(schemaDir);
  if (files.length === 0) {
    errors.push(`no .graphql files found in ${relative(root, schemaDir)}`);
    return undefined;
  }
  const sources = readSources(files);
  if (!parseEach(sources)) return undefined;

  const sdl = sources.map((source) => source.body).join('\n');
  let schema: GraphQLSchema;
  try {
    schema = buildSchema(sdl, { assumeValidSDL: false });
  } catch (error) {
    fail('schema build failed', error);
    return undefined;
  }
  for (const error of validateSchema(schema)) fail('schema invalid', error);
  return schema;
}

function checkOperations(schema: GraphQLSchema): number {
  const files = graphqlFiles(operationsDir);
  if (files.length === 0) {
    errors.push(`no .graphql files found in ${relative(root, operationsDir)}`);
    return 0;
  }
  const sources = readSources(files);
  if (!parseEach(sources)) return 0;

  const text = sources.map((source) => source.body).join('\n');
  const document = parse(new Source(text, 'schema/operations/*.graphql'));
  for (const error of validate(schema, document)) fail('operation invalid', error);

  const operations = document.definitions.filter(
    (definition): definition is OperationDefinitionNode => definition.kind === Kind.OPERATION_DEFINITION,
  );
  for (const operation of operations) {
    if (!operation.name) errors.push('operation invalid: every operation must be named');
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
