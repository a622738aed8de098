/**
 * GraphQL side of `npm run generate`: resolver types, typed client documents and the merged SDL the
 * server loads, following codegen.ts. Runs @graphql-codegen/core directly (no CLI, no file watchers).
 */
import path from 'node:path';
import { codegen } from '@graphql-codegen/core';
import * as typedDocumentNode from '@graphql-codegen/typed-document-node';
import * as typescript from '@graphql-codegen/typescript';
import * as typescriptOperations from '@graphql-codegen/typescript-operations';
import * as typescriptResolvers from '@graphql-codegen/typescript-resolvers';
import { isObjectType, Kind, parse, type GraphQLSchema } from 'graphql';
import settings from '../../codegen.ts';
import { buildSdlSchema, loadOperations, readGraphqlFiles, type GraphqlFile } from './sdl.ts';

const pluginMap = {
  typescript,
  'typescript-resolvers': typescriptResolvers,
  'typescript-operations': typescriptOperations,
  'typed-document-node': typedDocumentNode,
} as const;

/** The SDL files as one text, in file-name order, each under a `# ---- schema/<file>` line. */
function mergeSdl(files: readonly GraphqlFile[]): string {
  return files.map(({ file, text }) => `# ---- ${file}\n${text.trim()}\n`).join('\n');
}

export function loadSdl(root: string): string {
  return mergeSdl(readGraphqlFiles(root, settings.schema));
}

/** The alias codegen imports a mapper under: `../db/types.ts#UsersRow` → `UsersRowModel`. */
function modelAlias(mapper: string): string {
  return `${mapper.split('#')[1]}Model`;
}

const ROOT_TYPES = new Set(['Query', 'Mutation', 'Subscription']);

/**
 * A stricter Resolvers type: root fields always need a resolver, and a mapped type needs one for every
 * field its row type does not already carry under the same name. Adding a field to the SDL therefore
 * breaks `npm run typecheck` until it is implemented.
 */
function strictResolversType(schema: GraphQLSchema, mappers: Record<string, string>, contextType: string): string {
  const lines = [
    '',
    '/** Field names of a GraphQL type that its parent model does not carry: these need a resolver. */',
    'type Unresolved<TFields extends string, TModel> = Exclude<TFields, keyof TModel>;',
    '',
    `export type StrictResolvers<ContextType = ${contextType}> = Omit<Resolvers<ContextType>, `,
  ];
  const entries: string[] = [];
  const names = Object.keys(schema.getTypeMap())
    .filter((n) => !n.startsWith('__'))
    .sort();
  const strictNames: string[] = [];
  for (const name of names) {
    const type = schema.getType(name);
    if (!isObjectType(type)) continue;
    const fields = Object.keys(type.getFields()).sort();
    const union = fields.map((f) => `'${f}'`).join(' | ');
    if (ROOT_TYPES.has(name)) {
      strictNames.push(name);
      entries.push(`  ${name}: Required<${name}Resolvers<ContextType>>;`);
    } else if (mappers[name]) {
      strictNames.push(name);
      entries.push(
        `  ${name}: ${name}Resolvers<ContextType> & Required<Pick<${name}Resolvers<ContextType>, Unresolved<${union}, ${modelAlias(mappers[name])}>>>;`,
      );
    }
  }
  lines[lines.length - 1] += `${strictNames.map((n) => `'${n}'`).join(' | ') || 'never'}> & {`;
  return [...lines, ...entries, '};', ''].join('\n');
}

/**
 * The strict resolvers of each SDL file, for its area's resolvers file to declare its export with
 * (`schema/posts.graphql` → `StrictResolversOf<'posts'>` in src/content/posts.resolvers.ts): the root
 * fields the file declares or extends (`extend type Query` → those Query fields), each required, and
 * for a mapped type it declares or extends, its fields there, those its row does not carry required.
 * A field added to an SDL file without a resolver is then a compile error in that area file, at its
 * export, rather than in the file that merges the areas. Files with neither are left out.
 */
function strictResolversByFileType(files: readonly GraphqlFile[], mappers: Record<string, string>, contextType: string): string {
  const entries: string[] = [];
  for (const { file, text } of files) {
    const fieldsByType = new Map<string, string[]>();
    for (const definition of parse(text, { noLocation: true }).definitions) {
      if (definition.kind !== Kind.OBJECT_TYPE_DEFINITION && definition.kind !== Kind.OBJECT_TYPE_EXTENSION) continue;
      const name = definition.name.value;
      if (!ROOT_TYPES.has(name) && !mappers[name]) continue;
      fieldsByType.set(name, [...(fieldsByType.get(name) ?? []), ...(definition.fields ?? []).map((f) => f.name.value)]);
    }
    const members = [...fieldsByType]
      .filter(([, fields]) => fields.length > 0)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([type, fields]) => {
        const union = [...fields]
          .sort()
          .map((f) => `'${f}'`)
          .join(' | ');
        const resolvers = `${type}Resolvers<ContextType>`;
        return ROOT_TYPES.has(type)
          ? `    ${type}: Required<Pick<${resolvers}, ${union}>>;`
          : `    ${type}: Pick<${resolvers}, ${union}> & Required<Pick<${resolvers}, Unresolved<${union}, ${modelAlias(mappers[type]!)}>>>;`;
      });
    if (!members.length) continue;
    const area = path.basename(file, '.graphql');
    entries.push(`  /** schema/${area}.graphql → src/<area>/${area}.resolvers.ts */`, `  '${area}': {`, ...members, '  };');
  }
  return [
    '',
    '/** What each SDL file declares that needs a resolver, by file: see StrictResolversOf. */',
    `export interface StrictResolversByFile<ContextType = ${contextType}> {`,
    ...entries,
    '}',
    '',
    '/**',
    " * The resolvers schema/<file>.graphql needs, which its area's resolvers file exports",
    " * (`export const postsResolvers: StrictResolversOf<'posts'> = { … }`): its root fields, and the fields",
    ' * of its mapped types that their rows do not carry. Together they make StrictResolvers.',
    ' */',
    `export type StrictResolversOf<File extends keyof StrictResolversByFile, ContextType = ${contextType}> = StrictResolversByFile<ContextType>[File];`,
    '',
  ].join('\n');
}

export async function generateGraphql(root: string): Promise<Record<string, string>> {
  const files = readGraphqlFiles(root, settings.schema);
  const sdl = mergeSdl(files);
  // Each file parsed as its own Source, so an error names its file, line and column (sdl.ts).
  const { document: schemaAst, schema } = buildSdlSchema(files);
  const documents = loadOperations(schema, readGraphqlFiles(root, settings.documents));

  const out: Record<string, string> = {};
  for (const [filename, target] of Object.entries(settings.generates)) {
    const config = target.config ?? {};
    const text = await codegen({
      filename,
      schema: schemaAst,
      schemaAst: schema,
      documents: target.plugins.includes('typescript-resolvers') ? [] : documents,
      config,
      plugins: target.plugins.map((p) => ({ [p]: {} })),
      pluginMap,
    });
    let body = `// @generated by \`npm run generate\` from schema/ (see codegen.ts). Do not edit.\n${text}`;
    if (target.plugins.includes('typescript-resolvers')) {
      // The context type's name, as codegen imports it from `contextType` (`path#Name`).
      const contextType = String(config.contextType).split('#')[1]!;
      const mappers = (config.mappers ?? {}) as Record<string, string>;
      body += strictResolversType(schema, mappers, contextType);
      body += strictResolversByFileType(files, mappers, contextType);
    }
    out[filename] = body;
  }
  out['generated/graphql/typedefs.ts'] = [
    '// @generated by `npm run generate` from schema/*.graphql. Do not edit.',
    '/** The whole content schema, exactly as written in schema/, in file-name order. */',
    `export const typeDefs = ${JSON.stringify(sdl)};`,
    '',
  ].join('\n');
  out['generated/graphql/schema.graphql'] = sdl;
  return out;
}
