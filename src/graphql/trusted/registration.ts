/**
 * Registering a client's documents (its persisted-documents.json, `{ "<id>": "<document text>" }` as
 * graphql-codegen's client preset writes it). All or nothing: every document must parse and
 * validate against the schema, and an id of the form `sha256:<hex>` must be the hash of its text,
 * or nothing is registered and each problem is reported, one line per document.
 */
import { parse, specifiedRules, validate, type GraphQLSchema } from 'graphql';
import type { Executor } from '../../db/transaction.ts';
import { canonicalHashOf, documentIdOf } from './canonical.ts';
import { addDocuments, type TrustedDocumentInput } from './trusted-documents.repository.ts';

export class RegistrationError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(problems.join('\n'));
  }
}

/** The documents of a manifest, checked; throws RegistrationError listing every problem. */
function checkedDocuments(schema: GraphQLSchema, manifest: unknown, clientName: string | null): TrustedDocumentInput[] {
  if (typeof manifest !== 'object' || manifest === null || Array.isArray(manifest)) {
    throw new RegistrationError(['expected a JSON object of document id → document text (persisted-documents.json)']);
  }
  const problems: string[] = [];
  const documents: TrustedDocumentInput[] = [];
  for (const [id, text] of Object.entries(manifest as Record<string, unknown>)) {
    if (id.length < 1 || id.length > 200) {
      problems.push(`${id.slice(0, 40)}…: an id is 1 to 200 characters long`);
      continue;
    }
    if (typeof text !== 'string') {
      problems.push(`${id}: expected the document's text, got ${text === null ? 'null' : typeof text}`);
      continue;
    }
    if (id.startsWith('sha256:') && id !== documentIdOf(text)) {
      problems.push(`${id}: the id is not the SHA-256 of its text (${documentIdOf(text)})`);
      continue;
    }
    let document;
    try {
      document = parse(text);
    } catch (error) {
      problems.push(`${id}: ${(error as Error).message}`);
      continue;
    }
    const errors = validate(schema, document, specifiedRules);
    if (errors.length) {
      problems.push(...errors.map((e) => `${id}: ${e.message}`));
      continue;
    }
    documents.push({ id, document: text, canonicalSha256: canonicalHashOf(document), clientName });
  }
  if (problems.length) throw new RegistrationError(problems);
  return documents;
}

/** Registers a manifest's documents; returns how many were new and how many were registered already. */
export async function registerDocuments(
  db: Executor,
  schema: GraphQLSchema,
  manifest: unknown,
  clientName: string | null,
): Promise<{ added: number; known: number }> {
  const documents = checkedDocuments(schema, manifest, clientName);
  const added = await addDocuments(db, documents);
  return { added, known: documents.length - added };
}
