/**
 * Binary content stored as numbered bytea chunks. Writing consumes a stream chunk by chunk and
 * reading yields one chunk per query, so memory per request is bounded by the chunk size whatever
 * the file size.
 */
import type { Executor } from '../db/transaction.ts';

export const BLOB_CHUNK_BYTES = 512 * 1024;

/** Stores `content` (chunks of at most BLOB_CHUNK_BYTES) and returns the blob id and its size. */
export async function insertBlob(db: Executor, content: AsyncIterable<Uint8Array>): Promise<{ id: string; size: number }> {
  const { id } = await db.insertInto('blobs').values({ size: 0 }).returning('id').executeTakeFirstOrThrow();
  let seq = 0;
  let size = 0;
  for await (const chunk of content) {
    if (chunk.length === 0) continue;
    await db
      .insertInto('blob_chunks')
      .values({ blob_id: id, seq, data: Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length) })
      .execute();
    seq += 1;
    size += chunk.length;
  }
  await db.updateTable('blobs').set({ size }).where('id', '=', id).execute();
  return { id, size };
}

/** Yields the blob's bytes in order, one query per chunk. */
export async function* readBlob(db: Executor, blobId: string): AsyncGenerator<Buffer> {
  for (let seq = 0; ; seq += 1) {
    const row = await db.selectFrom('blob_chunks').select('data').where('blob_id', '=', blobId).where('seq', '=', seq).executeTakeFirst();
    if (!row) return;
    // pg returns a Buffer, PGlite a Uint8Array: wrap without copying.
    const data = row.data as Uint8Array;
    yield Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  }
}

/** Deletes the blobs (their chunks go with them: ON DELETE CASCADE). */
export async function deleteBlobs(db: Executor, blobIds: readonly string[]): Promise<void> {
  if (blobIds.length) await db.deleteFrom('blobs').where('id', 'in', blobIds).execute();
}
