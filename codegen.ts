/**
 * GraphQL code generation, read by `npm run generate` (scripts/generate/graphql.ts runs it through
 * @graphql-codegen/core). Mappers point GraphQL types at the database row types, so each resolver is
 * typed against what the services really return and the compiler flags every missing resolver.
 */
export interface CodegenTarget {
  plugins: string[];
  config?: Record<string, unknown>;
}

export interface CodegenSettings {
  schema: string;
  documents: string;
  generates: Record<string, CodegenTarget>;
}

const scalars = {
  DateTime: { input: 'Date | string', output: 'Date | string' },
  Json: { input: 'unknown', output: 'unknown' },
};

const config: CodegenSettings = {
  schema: 'schema/*.graphql',
  documents: 'schema/operations/*.graphql',
  generates: {
    // The schema's types alone (enums, inputs, objects), for code that needs a GraphQL type but not
    // the resolver signatures: those import the content area's context, which imports the area.
    'generated/graphql/types.ts': {
      plugins: ['typescript'],
      config: { useTypeImports: true, enumsAsTypes: true, scalars },
    },
    'generated/graphql/resolvers.ts': {
      plugins: ['typescript', 'typescript-resolvers'],
      config: {
        useTypeImports: true,
        enumsAsTypes: true,
        scalars,
        contextType: '../../src/content/content.context.ts#ContentContext',
        mapperTypeSuffix: 'Model',
        mappers: {
          User: '../db/types.ts#UsersRow',
          Post: '../db/types.ts#PostsRow',
          Comment: '../db/types.ts#CommentsRow',
          Tag: '../db/types.ts#TagsRow',
        },
        // Every field declared in the SDL must have a resolver or a mapped property of the same name.
        avoidOptionals: { field: true, inputValue: false, object: false, defaultValue: false, resolvers: false },
        makeResolverTypeCallable: true,
      },
    },
    'generated/client/graphql.ts': {
      plugins: ['typescript-operations', 'typed-document-node'],
      config: {
        useTypeImports: true,
        enumsAsTypes: true,
        scalars: { DateTime: 'string', Json: 'unknown' },
      },
    },
  },
};

export default config;
