/**
 * The migrated PGlite database, made once per machine and migration set and kept as a dump of its
 * data directory (a tar file) in node_modules/.cache/schemaforge/. Creating a PGlite database runs
 * initdb inside WebAssembly, about ten CPU-seconds; loading a dump, about one. Three things need a
 * migrated database and none tests its creation: `npm run generate`'s row types (db-types.ts), the
 * test databases on PGlite (test/helpers/database.ts) and the data folders of server processes
 * (test/helpers/server-process.ts). On a fresh clone the first of them (generate:check, in `npm
 * test`) makes it and the others load it.
 *
 * Keyed by the migrations' names and content, src/db/migrate.ts and the PGlite release (which fixes
 * the data directory's format), so editing a migration makes a new one. Written under a temporary
 * name and renamed, under a lock file, so processes that need it at once wait for one build instead
 * of each migrating a database of their own, and never read half a file.
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { openDatabase } from '../../src/db/database.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';

/** The project this file belongs to: its migrations are the ones migrateToLatest (imported above) runs. */
const root = path.resolve(import.meta.dirname, '../..');

/** Changes whenever a migration or the migrator does: the key of every migrated template (PGlite's here, PostgreSQL's in the tests). */
export function migrationsKey(): string {
  const hash = createHash('sha256');
  const dir = path.join(root, 'src/db/migrations');
  for (const name of fs.readdirSync(dir).sort())
    hash
      .update(name)
      .update('\0')
      .update(fs.readFileSync(path.join(dir, name)));
  hash.update(fs.readFileSync(path.join(root, 'src/db/migrate.ts')));
  return hash.digest('hex').slice(0, 32);
}

function pgliteVersion(): string {
  const manifest = JSON.parse(fs.readFileSync(path.join(root, 'node_modules/@electric-sql/pglite/package.json'), 'utf8')) as {
    version: string;
  };
  return manifest.version;
}

/** And the PGlite release, which fixes the data directory's format. */
export function snapshotKey(): string {
  return createHash('sha256').update(`${migrationsKey()} pglite ${pgliteVersion()}`).digest('hex').slice(0, 32);
}

/**
 * Waits while another process holds `lock` (a file created exclusively), for at most `staleMs`;
 * returns whether this process now holds it.
 */
async function takeLock(lock: string, done: () => boolean, staleMs = 120_000): Promise<boolean> {
  const deadline = Date.now() + staleMs;
  for (;;) {
    try {
      fs.closeSync(fs.openSync(lock, 'wx'));
      return true;
    } catch {
      if (done()) return false;
      if (Date.now() > deadline) {
        fs.rmSync(lock, { force: true });
        continue;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** Writes `bytes` to `file` under a temporary name first, so a reader never sees half of it. */
function place(file: string, bytes: Buffer): void {
  const partial = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  fs.writeFileSync(partial, bytes);
  fs.renameSync(partial, file);
}

/**
 * Migrates a new database and dumps it. The new database itself (initdb's output, which depends on
 * the PGlite release alone) is kept too, so the next build (a changed migration, a scratch copy of
 * the project with one more) loads it instead of running initdb again.
 */
async function build(file: string): Promise<Buffer> {
  const empty = path.join(path.dirname(file), `pglite-empty-${pgliteVersion()}.tar`);
  const made = fs.existsSync(empty);
  const handle = await openDatabase({ kind: 'pglite-memory', ...(made ? { snapshot: new Blob([fs.readFileSync(empty)]) } : {}) });
  try {
    const pglite = handle.pglite as PGlite;
    // Uncompressed: a gzip dump is ten times smaller but three times slower to load.
    if (!made) place(empty, Buffer.from(await (await pglite.dumpDataDir('none')).arrayBuffer()));
    await migrateToLatest(handle.db);
    const bytes = Buffer.from(await (await pglite.dumpDataDir('none')).arrayBuffer());
    place(file, bytes);
    return bytes;
  } finally {
    await handle.close();
  }
}

const made = new Map<string, Promise<Blob>>();

/** The dump of this project's migrated database (made if missing), read once per process. */
export function migratedPgliteSnapshot(): Promise<Blob> {
  const file = path.join(root, 'node_modules/.cache/schemaforge', `pglite-migrated-${snapshotKey()}.tar`);
  let snapshot = made.get(file);
  if (!snapshot) {
    snapshot = (async () => {
      if (fs.existsSync(file)) return new Blob([fs.readFileSync(file)]);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      const lock = `${file}.lock`;
      if (!(await takeLock(lock, () => fs.existsSync(file)))) return new Blob([fs.readFileSync(file)]);
      try {
        return new Blob([fs.existsSync(file) ? fs.readFileSync(file) : await build(file)]);
      } finally {
        fs.rmSync(lock, { force: true });
      }
    })();
    made.set(file, snapshot);
  }
  return snapshot;
}
