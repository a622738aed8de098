/**
 * One owner per embedded data folder. PGlite takes no lock of its own: two processes that open one
 * folder each see only their own writes, and whichever closes last overwrites the other's on disk (a
 * write answered 201 is gone after a restart). So the process that opens the folder first writes a
 * lock file beside it holding its process id, and any other process that finds that process alive
 * refuses to open the folder. A lock whose process is gone (kill -9, power loss) is taken over.
 *
 * The lock sits beside the folder (`<folder>.lock`), not in it: nothing else ever writes into
 * PGlite's data directory.
 */
import fs from 'node:fs';
import os from 'node:os';

/** Another live process holds the folder. */
class DataDirInUseError extends Error {
  constructor(
    readonly folder: string,
    readonly pid: number,
  ) {
    super(`the data folder ${folder} is in use by process ${pid}; stop that process or set DATA_DIR to another folder`);
  }
}

interface LockRecord {
  pid: number;
  hostname: string;
}

export interface DataDirLock {
  /** Removes the lock file if it is still this process's. */
  release(): void;
}

/** Takes the folder's lock or throws DataDirInUseError naming the process that holds it. */
export function lockDataDir(folder: string): DataDirLock {
  const file = `${folder}.lock`;
  const mine = JSON.stringify({ pid: process.pid, hostname: os.hostname() } satisfies LockRecord);
  // Two tries: the second follows the removal of a dead process's lock.
  for (let attempt = 0; attempt < 2; attempt++) {
    // Written whole under a name of its own, then linked into place: link() fails if the lock exists,
    // and nobody ever reads a half-written one.
    const staged = `${file}.${process.pid}`;
    fs.writeFileSync(staged, mine);
    try {
      fs.linkSync(staged, file);
      const release = () => {
        if (readLock(file)?.pid === process.pid) fs.rmSync(file, { force: true });
        process.off('exit', release);
      };
      // A process that exits without closing the database (an error at start) leaves no lock behind.
      process.on('exit', release);
      return { release };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    } finally {
      fs.rmSync(staged, { force: true });
    }
    const holder = readLock(file);
    if (holder && holdsIt(holder)) throw new DataDirInUseError(folder, holder.pid);
    fs.rmSync(file, { force: true });
  }
  const holder = readLock(file);
  throw new DataDirInUseError(folder, holder?.pid ?? 0);
}

function readLock(file: string): LockRecord | null {
  try {
    const record = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<LockRecord>;
    return typeof record.pid === 'number' && typeof record.hostname === 'string' ? (record as LockRecord) : null;
  } catch {
    // Gone meanwhile, or not a lock this code wrote: nobody's.
    return null;
  }
}

/**
 * Whether the recorded process still runs. A lock written on another host (a shared volume) cannot be
 * checked from here and counts as held. One recorded with this very process id is a previous life of
 * this process (a container restarted with the same pid 1), so it is not held.
 */
function holdsIt(record: LockRecord): boolean {
  if (record.hostname !== os.hostname()) return true;
  if (record.pid === process.pid) return false;
  try {
    process.kill(record.pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
