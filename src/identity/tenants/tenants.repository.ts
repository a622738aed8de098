import type { NewTenantsRow, TenantsRow } from '../../../generated/db/types.ts';
import type { Executor } from '../../db/transaction.ts';

export type TenantRecord = TenantsRow;

export type TenantSortField = 'id' | 'name' | 'createdAt';

const COLUMNS = { id: 'id', name: 'name', createdAt: 'created_at' } as const satisfies Record<TenantSortField, keyof TenantsRow>;

export interface TenantPageQuery {
  orders: { field: TenantSortField; direction: 'asc' | 'desc' }[];
  page: number;
  size: number;
}

export function insertTenant(db: Executor, tenant: NewTenantsRow): Promise<TenantRecord> {
  return db.insertInto('tenants').values(tenant).returningAll().executeTakeFirstOrThrow();
}

export function findTenant(db: Executor, id: string): Promise<TenantRecord | undefined> {
  return db.selectFrom('tenants').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function pageTenants(db: Executor, query: TenantPageQuery): Promise<{ rows: TenantRecord[]; total: number }> {
  let rows = db.selectFrom('tenants').selectAll();
  for (const order of query.orders) rows = rows.orderBy(COLUMNS[order.field], order.direction);
  const [items, total] = await Promise.all([
    rows
      .orderBy('id', 'asc')
      .limit(query.size)
      .offset(query.page * query.size)
      .execute(),
    db
      .selectFrom('tenants')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow(),
  ]);
  return { rows: items, total: Number(total.n) };
}
