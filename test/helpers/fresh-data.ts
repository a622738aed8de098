/**
 * Puts a test database back to what the migrations left, between the tests of a file that share one
 * server: every table is truncated (sequences restarted) and the rows the migrations insert (the
 * `default` tenant, the config document) are put back from a copy taken when the database was new.
 * A few milliseconds, where a new server costs half a second or more.
 */
import { sql } from 'kysely';
import type { DatabaseHandle } from '../../src/db/database.ts';

const SEED_SCHEMA = 'test_seed';

/** Runs several statements as one (simple query protocol on pg, exec on PGlite). */
async function execute(database: DatabaseHandle, statements: string[]): Promise<void> {
  const text = statements.join(';\n');
  if (database.pglite) await database.pglite.exec(text);
  else await database.pool!.query(text);
}

/**
 * Copies the rows of every non-empty table of a database that no test has touched yet, and returns
 * the reset that restores exactly that state.
 */
export async function snapshotSeedData(database: DatabaseHandle): Promise<() => Promise<void>> {
  const { rows } = await sql<{ name: string }>`
    select tablename as name from pg_tables where schemaname = 'public' and tablename not like 'kysely\\_%' order by tablename`.execute(
    database.db,
  );
  const tables = rows.map((r) => r.name);
  const seeded: string[] = [];
  for (const table of tables) {
    const { rows: any } = await sql<{ one: number }>`select 1 as one from ${sql.table(table)} limit 1`.execute(database.db);
    if (any.length) seeded.push(table);
  }
  await execute(database, [
    `create schema ${SEED_SCHEMA}`,
    ...seeded.map((table) => `create table ${SEED_SCHEMA}."${table}" as table public."${table}"`),
  ]);
  const reset = [
    `truncate table ${tables.map((table) => `public."${table}"`).join(', ')} restart identity cascade`,
    ...seeded.map((table) => `insert into public."${table}" overriding system value select * from ${SEED_SCHEMA}."${table}"`),
  ];
  return () => execute(database, reset);
}
