/**
 * Reads and checks the handwritten SDL and the client operations, shared by `npm run generate`
 * (scripts/generate/graphql.ts) and `npm run lint:specs` (scripts/check-sdl.ts), so both refuse the
 * same documents with the same lines. Each file is parsed as its own named graphql `Source` and the
 * documents are concatenated, so every error keeps its own file's line and column:
 * `schema/posts.graphql:27:3: Unknown type "Auther".`
 */
import fs from 'node:fs';
import path from 'node:path';
import {
  buildASTSchema,
  getLocation,
  GraphQLError,
  Kind,
  parse,
  Source,
  validate,
  validateSchema,
  type DocumentNode,
  type GraphQLSchema,
} from 'graphql';
// Not re-exported from 'graphql': the check buildSchema runs, which throws the messages without their places.
import { validateSDL } from 'graphql/validation/validate.js';
import { SpecError } from './spec-error.ts';

/** One .graphql file: its path from the project root (`schema/posts.graphql`) and its text. */
export interface GraphqlFile {
  file: string;
  text: string;
}

/** The files matching `dir/*.ext` (codegen.ts's `schema/*.graphql`), sorted by name. */
export function readGraphqlFiles(root: string, pattern: string): GraphqlFile[] {
  const dir = path.join(root, path.dirname(pattern));
  const ext = path.extname(pattern);
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith(ext))
    .sort()
    .map((f) => ({ file: path.join(path.dirname(pattern), f), text: fs.readFileSync(path.join(dir, f), 'utf8') }));
}

/**
 * One line per error: `schema/posts.graphql:27:3: Unknown type "Auther".`. An error with several
 * places (a type defined twice) names the others after it: `(also schema/users.graphql:4:6)`.
 */
export function graphqlErrorLine(error: GraphQLError): string {
  const places: string[] = [];
  for (const node of error.nodes ?? []) {
    if (!node.loc) continue;
    const { line, column } = getLocation(node.loc.source, node.loc.start);
    places.push(`${node.loc.source.name}:${line}:${column}`);
  }
  if (!places.length && error.source && error.locations?.[0]) {
    places.push(`${error.source.name}:${error.locations[0].line}:${error.locations[0].column}`);
  }
  const message = error.message.split('\n')[0]!;
  if (!places.length) return message;
  const also = [...new Set(places.slice(1))].filter((place) => place !== places[0]);
  return `${places[0]}: ${message}${also.length ? ` (also ${also.join(', ')})` : ''}`;
}

function lines(errors: readonly GraphQLError[]): string[] {
  return errors.map(graphqlErrorLine);
}

/** Parses each file on its own; the syntax errors of every file, one line each. */
function parseEach(files: readonly GraphqlFile[]): { documents: DocumentNode[]; errors: string[] } {
  const documents: DocumentNode[] = [];
  const errors: string[] = [];
  for (const { file, text } of files) {
    try {
      documents.push(parse(new Source(text, file)));
    } catch (error) {
      if (!(error instanceof GraphQLError)) throw error;
      errors.push(graphqlErrorLine(error));
    }
  }
  return { documents, errors };
}

function concat(documents: readonly DocumentNode[]): DocumentNode {
  return { kind: Kind.DOCUMENT, definitions: documents.flatMap((document) => document.definitions) };
}

/**
 * The schema of the given SDL files, checked as `buildSchema` checks it (syntax, unknown types,
 * duplicate names…) and then by `validateSchema` (interfaces implemented, root types…). Throws a
 * SpecError with one line per problem.
 */
export function buildSdlSchema(files: readonly GraphqlFile[]): { document: DocumentNode; schema: GraphQLSchema } {
  const parsed = parseEach(files);
  if (parsed.errors.length) throw SpecError.of(parsed.errors);
  const document = concat(parsed.documents);
  const sdlErrors = validateSDL(document);
  if (sdlErrors.length) throw SpecError.of(lines(sdlErrors));
  const schema = buildASTSchema(document, { assumeValidSDL: true });
  const schemaErrors = validateSchema(schema);
  if (schemaErrors.length) throw SpecError.of(lines(schemaErrors));
  return { document, schema };
}

/** The operation files, each parsed and all validated together against the schema; a SpecError otherwise. */
export function loadOperations(schema: GraphQLSchema, files: readonly GraphqlFile[]): { location: string; document: DocumentNode }[] {
  const parsed = parseEach(files);
  if (parsed.errors.length) throw SpecError.of(parsed.errors);
  const errors = validate(schema, concat(parsed.documents));
  if (errors.length) throw SpecError.of(lines(errors));
  return parsed.documents.map((document, i) => ({ location: files[i]!.file, document }));
}
