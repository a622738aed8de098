/** Stored files: metadata in `files`, bytes in chunked blobs, written in one transaction. */
import { ADMIN, hasRole, type Principal } from '../auth/principal.ts';
import type { Database } from '../db/database.ts';
import type { StorageHeadroom } from '../db/storage-headroom.ts';
import { inTransaction } from '../db/transaction.ts';
import { AppError, notFound } from '../errors.ts';
import { insertBlob, readBlob } from './blobs.repository.ts';
import * as repo from './files.repository.ts';

export type { FileRecord } from './files.repository.ts';

interface NewFile {
  filename: string;
  contentType: string;
  /** The content's length in bytes, known before it is stored (the upload is spooled first). */
  size: number;
  content: AsyncIterable<Uint8Array>;
}

/** Storing the file would take its uploader past FILES_QUOTA_BYTES: a 413 of its own type (decision 117). */
const quotaExceeded = (quotaBytes: number, storedBytes: number, size: number) =>
  new AppError(
    'PAYLOAD_TOO_LARGE',
    `Storing this file (${size} bytes) would exceed your quota of ${quotaBytes} bytes; you store ${storedBytes} bytes`,
    'QUOTA_EXCEEDED',
  );

const DEFAULT_TYPE = 'application/octet-stream';
// A bare `type/subtype` token pair (RFC 9110 §8.3.1); anything else is stored as octet-stream.
const MEDIA_TYPE = /^[A-Za-z0-9!#$&^_.+-]{1,127}\/[A-Za-z0-9!#$&^_.+-]{1,127}$/;

// oxlint-disable-next-line no-control-regex -- control characters are what it removes
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/g;

/** Keeps the name printable and bounded; the original is otherwise stored as given. */
function cleanFilename(name: string): string {
  const cleaned = name.replace(CONTROL_CHARACTERS, '').trim().slice(0, 255);
  return cleaned || 'file';
}

export class FilesService {
  constructor(
    private readonly db: Database,
    /** Total bytes of the files one user may store (FILES_QUOTA_BYTES). */
    private readonly quotaBytes: number,
    private readonly headroom: StorageHeadroom = () => {},
  ) {}

  /** Stores the file unless it would take `actor` over the quota, checked before a byte is written. */
  async store(actor: Principal, file: NewFile): Promise<repo.FileRecord> {
    this.headroom(file.size);
    return inTransaction(this.db, async (trx) => {
      await repo.lockUploads(trx, actor.userId);
      const stored = await repo.bytesStoredBy(trx, actor.userId);
      if (stored + file.size > this.quotaBytes) throw quotaExceeded(this.quotaBytes, stored, file.size);
      const blob = await insertBlob(trx, file.content);
      // Should the content not be as long as declared, the bytes written decide (the transaction is undone).
      if (stored + blob.size > this.quotaBytes) throw quotaExceeded(this.quotaBytes, stored, blob.size);
      return repo.insertFile(trx, {
        blob_id: blob.id,
        filename: cleanFilename(file.filename),
        content_type: MEDIA_TYPE.test(file.contentType) ? file.contentType.toLowerCase() : DEFAULT_TYPE,
        size: blob.size,
        uploaded_by: actor.userId,
      });
    });
  }

  /**
   * A file is its uploader's (and the platform administrators'): to anyone else it does not exist, so
   * its id, even leaked, reveals nothing.
   */
  async open(actor: Principal, id: string): Promise<{ file: repo.FileRecord; content: AsyncIterable<Buffer> }> {
    const file = await repo.findFile(this.db, id, hasRole(actor, ADMIN) ? null : actor.userId);
    if (!file) throw notFound(`File not found: ${id}`, 'FILE_NOT_FOUND');
    return { file, content: readBlob(this.db, file.blob_id) };
  }
}
