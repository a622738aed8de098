/**
 * What makes two GraphQL documents the same document for trust: the text graphql-js prints from
 * it, so spacing, commas and comments do not matter, and the SHA-256 of that text.
 */
import { createHash } from 'node:crypto';
import { parse, print, type DocumentNode } from 'graphql';

export function canonicalHashOf(document: DocumentNode): string {
  return createHash('sha256').update(print(document)).digest('hex');
}

/** The canonical hash of a document's text, or null when the text does not parse. */
export function canonicalHashOfText(text: string): string | null {
  try {
    return canonicalHashOf(parse(text, { maxTokens: 5_000 }));
  } catch {
    return null;
  }
}

/** The id a client (graphql-codegen's client preset) gives a document: `sha256:` and the hex of its text. */
export function documentIdOf(text: string): string {
  return `sha256:${createHash('sha256').update(text).digest('hex')}`;
}
