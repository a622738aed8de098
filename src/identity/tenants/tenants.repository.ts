import type { NewTenantsRow, TenantsRow } from '../../../generated/db/types.ts';
import type { Executor } from '../../db/transaction.ts';
import { notFound } from '../../errors.ts';

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

function findTenant(db: Executor, id: string, lock: boolean): Promise<TenantRecord | undefined> {
  const query = db.selectFrom('tenants').selectAll().where('id', '=', id);
  // NO KEY UPDATE: the rows that reference the tenant (users, groups) may still be written meanwhile.
  return (lock ? query.forNoKeyUpdate() : query).executeTakeFirst();
}

/**
 * The tenant `id`, or the 404 every tenant-scoped operation answers when there is none: the one
 * check the tenant, provider, domain and SCIM services share, here so that each reaches it in one hop.
 * `lock` (in a transaction) makes the tenant's other settings writes wait until it ends: a write that
 * reads the settings before it replaces them sees what it replaces.
 */
export async function requireTenant(db: Executor, id: string, lock = false): Promise<TenantRecord> {
  const tenant = await findTenant(db, id, lock);
  if (!tenant) throw notFound(`Tenant not found: ${id}`, 'TENANT_NOT_FOUND');
  return tenant;
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
