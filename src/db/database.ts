/**
 * Opens the Kysely instance for the configured target. Both dialects speak the same SQL and run the
 * same migrations; the handle also exposes what LISTEN/NOTIFY needs, which differs per driver.
 */
import fs from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { Kysely, PostgresDialect } from 'kysely';
import { PGliteDialect } from 'kysely-pglite-dialect';
import pg from 'pg';
import type { DB } from '../../generated/db/types.ts';
import type { DatabaseTarget } from '../config.ts';

export type Database = Kysely<DB>;

export interface DatabaseHandle {
  db: Database;
  kind: 'pglite' | 'postgres';
  /** Present on PGlite: the single in-process connection (also the LISTEN/NOTIFY channel). */
  pglite?: PGlite;
  /** Present on PostgreSQL: the pool, from which a dedicated LISTEN client can be taken. */
  pool?: pg.Pool;
  close(): Promise<void>;
}

// Keep int8 (counts, sums) as JS numbers: every count we return fits comfortably below 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

export async function openDatabase(target: DatabaseTarget): Promise<DatabaseHandle> {
  if (target.kind === 'postgres') {
    const pool = new pg.Pool({ connectionString: target.url, max: 10 });
    // Fail at start with the driver's reason rather than on the first request.
    const client = await pool.connect();
    client.release();
    const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
    return { db, kind: 'postgres', pool, close: () => db.destroy() };
  }
  let pglite: PGlite;
  if (target.kind === 'pglite-file') {
    fs.mkdirSync(target.dataDir, { recursive: true });
    pglite = await PGlite.create(target.dataDir, { parsers: { 20: (v: string) => Number(v) } });
  } else {
    pglite = await PGlite.create({ parsers: { 20: (v: string) => Number(v) } });
  }
  const db = new Kysely<DB>({ dialect: new PGliteDialect(pglite) });
  return {
    db,
    kind: 'pglite',
    pglite,
    close: async () => {
      await db.destroy();
      if (!pglite.closed) await pglite.close();
    },
  };
}
