/**
 * The trusted_documents table: registered GraphQL documents, by the client's id and by canonical
 * hash. Not tenant data: a document is trusted for the whole server, as the schema is.
 */
import type { Executor } from '../../db/transaction.ts';

export interface TrustedDocumentInput {
  id: string;
  document: string;
  canonicalSha256: string;
  clientName: string | null;
}

export async function findDocumentById(db: Executor, id: string): Promise<string | undefined> {
  const row = await db.selectFrom('trusted_documents').select('document').where('id', '=', id).executeTakeFirst();
  return row?.document;
}

export async function isCanonicalHashTrusted(db: Executor, canonicalSha256: string): Promise<boolean> {
  const row = await db
    .selectFrom('trusted_documents')
    .select('id')
    .where('canonical_sha256', '=', canonicalSha256)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** Inserts the documents not registered yet (an id already there keeps its document); returns how many were new. */
export async function addDocuments(db: Executor, documents: readonly TrustedDocumentInput[]): Promise<number> {
  if (!documents.length) return 0;
  const inserted = await db
    .insertInto('trusted_documents')
    .values(documents.map((d) => ({ id: d.id, document: d.document, canonical_sha256: d.canonicalSha256, client_name: d.clientName })))
    .onConflict((oc) => oc.column('id').doNothing())
    .returning('id')
    .execute();
  return inserted.length;
}

export async function listDocuments(db: Executor): Promise<{ id: string; clientName: string | null; createdAt: Date }[]> {
  const rows = await db
    .selectFrom('trusted_documents')
    .select(['id', 'client_name', 'created_at'])
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map((r) => ({ id: r.id, clientName: r.client_name, createdAt: r.created_at }));
}

/** Removes documents by id, or every document of a client; returns how many were removed. */
export async function removeDocuments(db: Executor, which: { ids?: readonly string[]; clientName?: string }): Promise<number> {
  let query = db.deleteFrom('trusted_documents');
  if (which.ids) query = query.where('id', 'in', which.ids.length ? which.ids : ['']);
  if (which.clientName !== undefined) query = query.where('client_name', '=', which.clientName);
  const result = await query.executeTakeFirst();
  return Number(result.numDeletedRows);
}
