import type { FilesRow } from '../../generated/db/types.ts';
import type { Executor } from '../db/transaction.ts';

export type FileRecord = FilesRow;

export function insertFile(
  db: Executor,
  file: Pick<FilesRow, 'blob_id' | 'filename' | 'content_type' | 'size' | 'uploaded_by'>,
): Promise<FileRecord> {
  return db.insertInto('files').values(file).returningAll().executeTakeFirstOrThrow();
}

export function findFile(db: Executor, id: string): Promise<FileRecord | undefined> {
  return db.selectFrom('files').selectAll().where('id', '=', id).executeTakeFirst();
}
