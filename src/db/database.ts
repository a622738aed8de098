/**
 * Opens the Kysely instance for the configured target. Both dialects speak the same SQL and run the
 * same migrations; the handle also exposes what LISTEN/NOTIFY needs, which differs per driver.
 */
import fs from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { Kysely, PostgresDialect, type Dialect, type LogEvent } from 'kysely';
import { executeMarkedStatementsPrepared, sendMarkedStatementsNamed } from './prepared-statements.ts';
import { PGliteDialect } from 'kysely-pglite-dialect';
import pg from 'pg';
import type { DB } from '../../generated/db/types.ts';
import type { DatabaseTarget } from '../config.ts';
import { lockDataDir, type DataDirLock } from './data-dir-lock.ts';

export type Database = Kysely<DB>;

export interface DatabaseHandle {
  db: Database;
  kind: 'pglite' | 'postgres';
  /** Present on PGlite: the single in-process connection (also the LISTEN/NOTIFY channel). */
  pglite?: PGlite;
  /** Present on PostgreSQL: the pool, from which a dedicated LISTEN client can be taken. */
  pool?: pg.Pool;
  /**
   * Calls `listener` with the SQL (and parameters) of every statement run through `db` until the
   * returned function is called. Tests use it to prove that batching keeps the statement count flat;
   * scripts/bench/graphql-explain.ts to EXPLAIN what a request ran.
   */
  observeQueries(listener: (sql: string, parameters: readonly unknown[]) => void): () => void;
  /**
   * Calls `listener` when the server ends an idle pooled connection (a restart, an operator's
   * pg_terminate_backend, a proxy's idle timeout). The pool has already dropped that connection and
   * opens a new one on the next query; without a listener node-postgres would throw the error and
   * stop the process. PGlite has no such connections and never calls it.
   */
  onConnectionError(listener: (error: Error) => void): void;
  close(): Promise<void>;
}

/** Kysely's `log` hook fanned out to the current observers (none in production: one Set lookup). */
function queryObservers(): { log: (event: LogEvent) => void; observe: DatabaseHandle['observeQueries'] } {
  const listeners = new Set<(sql: string, parameters: readonly unknown[]) => void>();
  return {
    log: (event) => {
      for (const listener of listeners) listener(event.query.sql, event.query.parameters);
    },
    observe: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

interface OpenOptions {
  /**
   * Wraps the dialect before Kysely gets it (tracing, src/ops/tracing/db-spans.ts, sees every
   * statement there); the dialect as it is by default.
   */
  wrapDialect?: (dialect: Dialect) => Dialect;
}

// Keep int8 (counts, sums) as JS numbers: every count we return fits comfortably below 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

export async function openDatabase(target: DatabaseTarget, { wrapDialect = (d) => d }: OpenOptions = {}): Promise<DatabaseHandle> {
  if (target.kind === 'postgres') {
    const pool = new pg.Pool({ connectionString: target.url, max: 10 });
    const connectionErrorListeners = new Set<(error: Error) => void>();
    pool.on('error', (error) => {
      for (const listener of connectionErrorListeners) listener(error);
    });
    // The pool listens for errors on idle connections only. One checked out (between the statements
    // of a transaction) that the server ends (a restart: 57P01) emits 'error' on the client itself,
    // and with no listener that stops the process; its next statement fails on its own, and the pool
    // discards the connection when it is released.
    // The pool reports the idle ones (above); a checked-out one's next statement fails and says so.
    pool.on('connect', (client) => {
      client.on('error', () => {});
      sendMarkedStatementsNamed(client);
    });
    // Fail at start with the driver's reason rather than on the first request.
    const client = await pool.connect();
    client.release();
    const observers = queryObservers();
    const db = new Kysely<DB>({ dialect: wrapDialect(new PostgresDialect({ pool })), log: observers.log });
    return {
      db,
      kind: 'postgres',
      pool,
      observeQueries: observers.observe,
      onConnectionError: (listener) => void connectionErrorListeners.add(listener),
      close: () => db.destroy(),
    };
  }
  let pglite: PGlite;
  let lock: DataDirLock | null = null;
  if (target.kind === 'pglite-file') {
    fs.mkdirSync(target.dataDir, { recursive: true });
    lock = lockDataDir(target.dataDir);
    try {
      pglite = await PGlite.create(target.dataDir, { parsers: { 20: (v: string) => Number(v) } });
    } catch (error) {
      lock.release();
      throw error;
    }
  } else {
    pglite = await PGlite.create({ parsers: { 20: (v: string) => Number(v) }, loadDataDir: target.snapshot });
  }
  executeMarkedStatementsPrepared(pglite);
  const observers = queryObservers();
  const db = new Kysely<DB>({ dialect: wrapDialect(new PGliteDialect(pglite)), log: observers.log });
  return {
    db,
    kind: 'pglite',
    pglite,
    observeQueries: observers.observe,
    onConnectionError: () => {},
    close: async () => {
      await db.destroy();
      if (!pglite.closed) await pglite.close();
      lock?.release();
    },
  };
}
