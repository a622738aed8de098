import type { Transaction } from 'kysely';
import type { DB } from '../../generated/db/types.ts';
import type { Database } from './database.ts';

/** Either the root handle or an open transaction: repositories take this as their first argument. */
export type Executor = Database | Transaction<DB>;

/**
 * Runs `fn` in one transaction, reusing the caller's transaction when one is already open so that
 * services compose (a service called from another service's transaction does not nest).
 */
export function inTransaction<T>(db: Executor, fn: (trx: Transaction<DB>) => Promise<T>): Promise<T> {
  if (db.isTransaction) return fn(db as Transaction<DB>);
  return db.transaction().execute(fn);
}
