/**
 * After `npm run generate`: every REST operation and every GraphQL field that needs code, with none
 * written yet, as one short line naming it and the file to write it in, instead of the compiler's
 * type dump at the aggregating file (src/content/content.graph.ts) or the start-up refusal.
 *
 * - An operation is written when some file under src/ has a property or method of its operationId
 *   (`createProduct: async (request, reply) => …`). Its file is where the operations next to it
 *   (same document, same first tag) are written, else the area plugin that registers the document.
 * - A root field (Query, Mutation, Subscription), or a field of a type backed by a row (codegen.ts
 *   `mappers`) that the row does not carry, needs a resolver; its file is the area's resolvers file
 *   named after the SDL file that declares it: schema/posts.graphql → src/<area>/posts.resolvers.ts.
 *   When the row has the column under its snake_case name (`publishedAt`, `published_at`), the line
 *   names the content graph's field → column table (src/content/field-columns.ts), where such a
 *   field is mapped. When the row has no column of that name either (`readingMinutes` nor
 *   `reading_minutes`), the line names the migration folder as well: a stored field is a new column, and nothing else (the
 *   repositories' insert and update types are the generated `NewXRow`/`XRowChanges`).
 * - A property of an OpenAPI schema that a representation file maps rows to (a `*.representation.ts`
 *   naming `components['schemas']['Order']`), for a schema backed by a table (`Order` → `orders`,
 *   `ProductResponse` → `products`), needs mapping when that file never names it; the line names the
 *   file, and the migration folder too when the table has no such column.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Kind, parse } from 'graphql';
import { SERVED_METHODS } from '../../src/http/openapi-methods.ts';

type Json = Record<string, unknown>;
type Operation = { operationId?: string; tags?: string[] };
const ROOT_TYPES = new Set(['Query', 'Mutation', 'Subscription']);

interface ImplementationInputs {
  /** schema/*.graphql by file name (e.g. `posts.graphql`). */
  sdl: Record<string, string>;
  /** Bundled OpenAPI documents by name. */
  documents: Record<string, Json>;
  /** src/ files (path relative to the project root) and their text. */
  sources: Record<string, string>;
  /** Mapped GraphQL type → the columns of its row type. */
  rows: Record<string, Set<string>>;
  /** Every table of the generated row types → its columns. */
  tables: Record<string, Set<string>>;
  /** codegen.ts `mappers`: GraphQL type → its row type (`../db/types.ts#PostsRow`). */
  mappers: Record<string, string>;
}

/** Where a new column goes: a new migration file, listed in the folder's index.ts. */
const MIGRATIONS = 'src/db/migrations/';

function snake(name: string): string {
  return name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();
}

function definesKey(text: string, key: string): boolean {
  return new RegExp(`^\\s+(?:async\\s+)?${key}\\s*(?::|\\()`, 'm').test(text);
}

function filesDefining(sources: Record<string, string>, key: string, filter: (file: string) => boolean = () => true): string[] {
  return Object.keys(sources).filter((file) => filter(file) && definesKey(sources[file]!, key));
}

function missingHandlers({ documents, sources }: ImplementationInputs): string[] {
  const lines: string[] = [];
  for (const [name, doc] of Object.entries(documents)) {
    const operations: { id: string; where: string; tag: string }[] = [];
    for (const [route, item] of Object.entries((doc.paths ?? {}) as Record<string, Record<string, Operation>>)) {
      for (const method of SERVED_METHODS) {
        const op = item[method];
        if (op?.operationId) operations.push({ id: op.operationId, where: `${method.toUpperCase()} ${route}`, tag: op.tags?.[0] ?? '' });
      }
    }
    const written = new Map(operations.map((o) => [o.id, filesDefining(sources, o.id)[0]]));
    const plugin = Object.keys(sources).find((file) =>
      new RegExp(`registerOperations(?:<\\w+>)?\\(\\s*\\w+,\\s*'${name}'`).test(sources[file]!),
    );
    for (const op of operations) {
      if (written.get(op.id)) continue;
      const sibling = operations.find((o) => o.tag === op.tag && written.get(o.id)) ?? operations.find((o) => written.get(o.id));
      const file = sibling ? written.get(sibling.id)! : (plugin ?? `a plugin that registers openapi/${name}.yaml`);
      lines.push(`missing handler: ${name}#${op.id} (${op.where}): write it in ${file}${sibling ? ` (beside ${sibling.id})` : ''}`);
    }
  }
  return lines;
}

function missingResolvers({ sdl, sources, rows, mappers }: ImplementationInputs): string[] {
  const lines: string[] = [];
  // The content graph's field → column table (src/content/field-columns.ts) maps a field to a
  // column of another name; the resolvers take their mappings from it.
  const columnsFile = Object.keys(sources).find((f) => f.endsWith('/field-columns.ts'));
  const resolverFiles = (file: string) => file.endsWith('.resolvers.ts') || file === columnsFile;
  for (const [sdlFile, text] of Object.entries(sdl)) {
    const area = sdlFile.replace(/\.graphql$/, '');
    const home = Object.keys(sources).find((f) => f.endsWith(`/${area}.resolvers.ts`)) ?? `src/<area>/${area}.resolvers.ts`;
    for (const definition of parse(text).definitions) {
      if (definition.kind !== Kind.OBJECT_TYPE_DEFINITION && definition.kind !== Kind.OBJECT_TYPE_EXTENSION) continue;
      const type = definition.name.value;
      const row = rows[type];
      if (!ROOT_TYPES.has(type) && !row) continue;
      const table = tableOfType(mappers, type);
      for (const field of definition.fields ?? []) {
        const name = field.name.value;
        if (row?.has(name)) continue;
        if (filesDefining(sources, name, resolverFiles).length) continue;
        const where = `${type}.${name} (schema/${sdlFile})`;
        if (row && table && !row.has(snake(name))) {
          const column = `${table}.${snake(name)}`;
          lines.push(`missing column: ${where}: add ${column} in a new migration in ${MIGRATIONS}, or write a resolver in ${home}`);
        } else if (row && table && columnsFile) {
          lines.push(`missing mapping: ${where}: map it to ${table}.${snake(name)} in ${columnsFile}, or write a resolver in ${home}`);
        } else lines.push(`missing resolver: ${where}: write it in ${home}`);
      }
    }
  }
  return lines;
}

/** A schema's properties, its own and those of the schemas it is allOf (local references). */
function schemaProperties(doc: Json, name: string, seen = new Set<string>()): string[] {
  const schemas = ((doc.components as Json | undefined)?.schemas ?? {}) as Record<string, Json>;
  const schema = schemas[name];
  if (!schema || seen.has(name)) return [];
  seen.add(name);
  const own = Object.keys(schema.properties ?? {});
  const inherited = ((schema.allOf ?? []) as Json[]).flatMap((part) => {
    const ref = typeof part.$ref === 'string' ? /^#\/components\/schemas\/(.+)$/.exec(part.$ref)?.[1] : undefined;
    return ref ? schemaProperties(doc, ref, seen) : Object.keys(part.properties ?? {});
  });
  return [...new Set([...own, ...inherited])];
}

/** The table a schema represents, if any: its name less Response/Summary, plural, snake case. */
function tableOf(schema: string, tables: Record<string, Set<string>>): string | undefined {
  const table = `${snake(schema.replace(/(Response|Summary)$/, ''))}s`;
  return tables[table] ? table : undefined;
}

function missingRepresentations({ documents, sources, tables }: ImplementationInputs): string[] {
  const lines: string[] = [];
  for (const [file, text] of Object.entries(sources)) {
    if (!file.endsWith('.representation.ts')) continue;
    const name = /generated\/openapi\/([\w-]+)\.ts'/.exec(text)?.[1];
    const doc = name ? documents[name] : undefined;
    if (!doc) continue;
    const schemas = [...new Set([...text.matchAll(/\['([A-Z]\w*)'\]/g)].map((m) => m[1]!))].sort();
    for (const schema of schemas) {
      const table = tableOf(schema, tables);
      if (!table) continue;
      for (const property of schemaProperties(doc, schema)) {
        // A name that is no identifier (SCIM's `urn:…` extension objects) is no column.
        if (!/^\w+$/.test(property) || new RegExp(`\\b${property}\\b`).test(text)) continue;
        const where = `${name}#${schema}.${property} (openapi/${name}.yaml)`;
        const column = tables[table]!.has(snake(property)) || tables[table]!.has(property) ? undefined : `${table}.${snake(property)}`;
        lines.push(
          column
            ? `missing column: ${where}: add ${column} in a new migration in ${MIGRATIONS}, then map it in ${file}`
            : `missing representation: ${where}: map it in ${file}`,
        );
      }
    }
  }
  return lines;
}

export function missingImplementations(inputs: ImplementationInputs): string[] {
  return [...missingHandlers(inputs), ...missingResolvers(inputs), ...missingRepresentations(inputs)];
}

function listTs(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    return e.isDirectory() ? listTs(full) : e.name.endsWith('.ts') ? [full] : [];
  });
}

/** Every table of the generated row types and its columns (`interface UsersTable` → `users`). */
function tableColumns(dbTypes: string): Record<string, Set<string>> {
  const tables: Record<string, Set<string>> = {};
  for (const [, name, body] of dbTypes.matchAll(/export interface (\w+)Table \{([^}]*)\}/g)) {
    tables[snake(name!)] = new Set([...body!.matchAll(/^\s+(\w+):/gm)].map((m) => m[1]!));
  }
  return tables;
}

/** The table behind a mapped GraphQL type (`PostsRow` → `posts`). */
function tableOfType(mappers: Record<string, string>, type: string): string | undefined {
  const mapper = mappers[type];
  return mapper === undefined ? undefined : snake(mapper.split('#')[1]!.replace(/Row$/, ''));
}

/** Columns of each mapped type's row interface in the generated row types (`UsersRow` → `UsersTable`). */
export function mappedRows(mappers: Record<string, string>, dbTypes: string): Record<string, Set<string>> {
  const tables = tableColumns(dbTypes);
  const rows: Record<string, Set<string>> = {};
  for (const type of Object.keys(mappers)) rows[type] = tables[tableOfType(mappers, type)!] ?? new Set();
  return rows;
}

/** The inputs as they are in `root`, with the freshly generated documents and row types. */
export function readInputs(
  root: string,
  documents: Record<string, Json>,
  dbTypes: string,
  mappers: Record<string, string>,
): ImplementationInputs {
  const schemaDir = path.join(root, 'schema');
  const sdl = Object.fromEntries(
    fs
      .readdirSync(schemaDir)
      .filter((f) => f.endsWith('.graphql'))
      .sort()
      .map((f) => [f, fs.readFileSync(path.join(schemaDir, f), 'utf8')]),
  );
  const sources = Object.fromEntries(listTs(path.join(root, 'src')).map((f) => [path.relative(root, f), fs.readFileSync(f, 'utf8')]));
  return { sdl, documents, sources, rows: mappedRows(mappers, dbTypes), tables: tableColumns(dbTypes), mappers };
}
