import type { CustomersRow, NewCustomersRow } from '../../generated/db/types.ts';
import type { Executor } from '../db/transaction.ts';

export type CustomerRecord = CustomersRow;

export function insertCustomer(db: Executor, customer: NewCustomersRow): Promise<CustomerRecord> {
  return db.insertInto('customers').values(customer).returningAll().executeTakeFirstOrThrow();
}

export function findCustomer(db: Executor, id: string): Promise<CustomerRecord | undefined> {
  return db.selectFrom('customers').selectAll().where('id', '=', id).executeTakeFirst();
}
