import { sql } from 'kysely';
import type { FilesRow, NewFilesRow } from '../../generated/db/types.ts';
import type { Executor } from '../db/transaction.ts';

export type FileRecord = FilesRow;

export function insertFile(db: Executor, file: NewFilesRow): Promise<FileRecord> {
  return db.insertInto('files').values(file).returningAll().executeTakeFirstOrThrow();
}

/** The file, when `uploader` uploaded it (null: whoever did: the platform's administrators). */
export function findFile(db: Executor, id: string, uploader: string | null): Promise<FileRecord | undefined> {
  let query = db.selectFrom('files').selectAll().where('id', '=', id);
  if (uploader !== null) query = query.where('uploaded_by', '=', uploader);
  return query.executeTakeFirst();
}

/**
 * Holds, until the transaction ends, the one lock of `uploader`'s uploads: two uploads of one user at
 * once would otherwise each count the stored bytes without the other's and both pass the quota.
 * Other users' uploads take other locks and do not wait.
 */
export async function lockUploads(db: Executor, uploader: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtextextended(${`files-quota:${uploader}`}, 0))`.execute(db);
}

/** Bytes of every file `uploader` has stored. */
export async function bytesStoredBy(db: Executor, uploader: string): Promise<number> {
  const row = await db
    .selectFrom('files')
    .select(sql<string>`coalesce(sum(size), 0)`.as('bytes'))
    .where('uploaded_by', '=', uploader)
    .executeTakeFirstOrThrow();
  // sum() of integers is a bigint, which pg returns as a string.
  return Number(row.bytes);
}
