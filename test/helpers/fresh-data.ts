/**
 * Puts a test database back to a state copied earlier. Between the tests of a file that share one
 * server, that state is what the migrations left: every table is emptied and the rows the
 * migrations insert (the `default` tenant, the config document) are put back from a copy taken when
 * the database was new. A test may also copy a world it built once and go back to it before each
 * case (test/foundation/authorization-matrix.test.ts). A few milliseconds, where a new server costs
 * half a second or more.
 */
import { sql } from 'kysely';
import type { DatabaseHandle } from '../../src/db/database.ts';

/** Runs several statements as one (simple query protocol on pg, exec on PGlite). */
async function execute(database: DatabaseHandle, statements: string[]): Promise<void> {
  const text = statements.join(';\n');
  if (database.pglite) await database.pglite.exec(text);
  else await database.pool!.query(text);
}

/**
 * Copies the rows of every non-empty table into schema `schema`, and returns the reset that restores
 * exactly that state: the same rows, and every sequence just past the largest value its column holds
 * (so a row inserted after a reset never takes the id of a restored one).
 */
export async function snapshotData(database: DatabaseHandle, schema: string): Promise<() => Promise<void>> {
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
  const { rows: references } = await sql<{ child: string; parent: string }>`
    select conrelid::regclass::text as child, confrelid::regclass::text as parent from pg_constraint
    where contype = 'f' and connamespace = 'public'::regnamespace`.execute(database.db);
  const ordered = parentsFirst(seeded, references);
  const { rows: sequenced } = await sql<{ table: string; column: string }>`
    select table_name as "table", column_name as "column" from information_schema.columns
    where table_schema = 'public' and (is_identity = 'YES' or column_default like 'nextval(%')`.execute(database.db);
  await execute(database, [
    `create schema ${schema}`,
    ...seeded.map((table) => `create table ${schema}."${table}" as table public."${table}"`),
  ]);
  // DELETE, not TRUNCATE: a truncation gives every table and index a new file, about 60 ms of the
  // PostgreSQL server's CPU a reset, where deleting the few rows a test wrote costs next to nothing.
  // As a replica, the session fires no trigger (no notification, no epoch bump; truncation fired
  // none either) and checks no foreign key, so the order of the tables does not matter.
  const reset = [
    `set session_replication_role = replica`,
    ...tables.map((table) => `delete from public."${table}"`),
    ...ordered.map((table) => `insert into public."${table}" overriding system value select * from ${schema}."${table}"`),
    ...sequenced.map(
      ({ table, column }) =>
        `select setval(pg_get_serial_sequence('public."${table}"', '${column}'), coalesce((select max("${column}") from public."${table}"), 0) + 1, false)`,
    ),
    `set session_replication_role = origin`,
  ];
  return () => execute(database, reset);
}

/** `tables` ordered so that a table comes after every table its foreign keys point to. */
function parentsFirst(tables: string[], references: { child: string; parent: string }[]): string[] {
  const ordered: string[] = [];
  const visit = (table: string, path: string[]) => {
    if (ordered.includes(table) || path.includes(table)) return;
    for (const { parent } of references.filter((r) => r.child === table && r.parent !== table)) {
      if (tables.includes(parent)) visit(parent, [...path, table]);
    }
    ordered.push(table);
  };
  for (const table of tables) visit(table, []);
  return ordered;
}

/** The reset to the database as the migrations left it, copied before any test has touched it. */
export function snapshotSeedData(database: DatabaseHandle): Promise<() => Promise<void>> {
  return snapshotData(database, 'test_seed');
}
