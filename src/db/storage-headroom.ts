/**
 * Room left on the embedded database's disk, checked before a file or an image is stored. PGlite
 * does not survive a full disk: the write fails, the instance answers every later query with
 * "cannot drop active portal", and the folder may no longer open (measured with `npm run faults --
 * disk-full` before this check existed). So an upload that would leave less than RESERVE_BYTES free,
 * counting the bytes twice (the heap and the write-ahead log both take them), is refused with 507
 * before a byte is written. On PostgreSQL the server's disk is not ours to see: its disk_full error
 * (53100) undoes the transaction and is answered 507 too (src/http/problem.ts).
 */
import fs from 'node:fs';
import type { DatabaseTarget } from '../config.ts';
import { insufficientStorage } from '../errors.ts';

/** Throws INSUFFICIENT_STORAGE when storing `bytes` more would crowd the database's disk. */
export type StorageHeadroom = (bytes: number) => void;

export const RESERVE_BYTES = 64 * 1024 * 1024;

type StatFs = (path: string) => { bavail: number; bsize: number };

export function storageHeadroom(target: DatabaseTarget, statfs: StatFs = fs.statfsSync): StorageHeadroom {
  if (target.kind !== 'pglite-file') return () => {};
  const folder = target.dataDir;
  return (bytes) => {
    const { bavail, bsize } = statfs(folder);
    if (bavail * bsize - 2 * bytes < RESERVE_BYTES) throw insufficientStorage(bytes);
  };
}
