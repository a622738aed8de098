/**
 * `scim_activity` (migration 0028), one row per SCIM request a tenant's token authenticated: written
 * after the response by the SCIM scope (scim-activity.ts), listed for the tenant's
 * administrators (admin.yaml `listScimActivity`), bounded by the sweep (scim-activity-sweep.ts).
 */
import { sql } from 'kysely';
import type { NewScimActivityRow, ScimActivityRow } from '../../../generated/db/types.ts';
import type { Executor } from '../../db/transaction.ts';

export type ScimActivityRecord = Omit<ScimActivityRow, 'position' | 'tenant_id'>;
export type ScimActivityOutcome = 'success' | 'failure';

const LISTED = [
  'id',
  'at',
  'method',
  'operation',
  'resource_type',
  'resource_id',
  'resource_label',
  'status',
  'outcome',
  'scim_type',
  'detail',
] as const;

export async function insertActivity(db: Executor, row: NewScimActivityRow): Promise<void> {
  await db.insertInto('scim_activity').values(row).execute();
}

export async function pageActivity(
  db: Executor,
  query: { tenantId: string; page: number; size: number; outcome?: ScimActivityOutcome },
): Promise<{ rows: ScimActivityRecord[]; total: number }> {
  let base = db.selectFrom('scim_activity').where('tenant_id', '=', query.tenantId);
  if (query.outcome) base = base.where('outcome', '=', query.outcome);
  const [rows, total] = await Promise.all([
    base
      .select([...LISTED])
      .orderBy('at', 'desc')
      .orderBy('position', 'desc')
      .limit(query.size)
      .offset(query.page * query.size)
      .execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(total.n) };
}

/**
 * Deletes what retention no longer keeps: every row older than `maxAgeDays`, and each tenant's rows
 * beyond its newest `keepPerTenant`. Returns how many rows went.
 */
export async function deleteBeyondRetention(db: Executor, retention: { keepPerTenant: number; maxAgeDays: number }): Promise<number> {
  const old = await db
    .deleteFrom('scim_activity')
    .where('at', '<', sql<Date>`now() - make_interval(days => ${retention.maxAgeDays})`)
    .executeTakeFirst();
  const surplus = await db
    .deleteFrom('scim_activity')
    .where('id', 'in', (eb) =>
      eb
        .selectFrom(
          eb
            .selectFrom('scim_activity')
            .select(['id', sql<number>`row_number() over (partition by tenant_id order by at desc, position desc)`.as('rank')])
            .as('ranked'),
        )
        .select('ranked.id')
        .where('ranked.rank', '>', retention.keepPerTenant),
    )
    .executeTakeFirst();
  return Number(old.numDeletedRows) + Number(surplus.numDeletedRows);
}
