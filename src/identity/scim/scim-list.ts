/**
 * The SCIM list query (RFC 7644 §3.4.2): filter, sort and page one tenant's users or groups in SQL,
 * returning the matching ids in order and the total count. The caller loads the resources by id.
 */
import { sql, type Expression, type SqlBool } from 'kysely';
import type { Executor } from '../../db/transaction.ts';
import { resolvePath } from './scim-attribute-path.ts';
import type { ResourceKind } from './scim-schema.ts';
import { filterCondition } from './scim-filter-sql.ts';
import { parseScimFilter } from './scim-filter-parse.ts';
import { ScimQueryError } from './scim-query-error.ts';

/** `filter.maxResults` of ServiceProviderConfig: the most resources one list response holds. */
export const SCIM_MAX_RESULTS = 200;

export interface ScimListQuery {
  tenantId: string;
  /** The raw `filter` query parameter. */
  filter?: string;
  /** 1-based; the caller has already turned values below 1 into 1. */
  startIndex: number;
  /** 0..SCIM_MAX_RESULTS; the caller has already clamped it. */
  count: number;
  /** A SCIM attribute path, e.g. `userName`, `meta.created`, `name.familyName`. */
  sortBy?: string;
  sortOrder?: 'ascending' | 'descending';
}

export interface ScimListResult {
  totalResults: number;
  ids: string[];
}

interface SortKey {
  column: string;
  /** Sorted by `lower()` (caseExact false), so `alice` and `Bob` sort as a person expects. */
  caseInsensitive: boolean;
}

const USER_SORT: Record<string, SortKey> = {
  id: { column: 'users.id', caseInsensitive: false },
  externalId: { column: 'users.external_id', caseInsensitive: false },
  userName: { column: 'users.username', caseInsensitive: true },
  'name.givenName': { column: 'users.given_name', caseInsensitive: true },
  'name.familyName': { column: 'users.family_name', caseInsensitive: true },
  displayName: { column: 'users.display_name', caseInsensitive: true },
  // A multi-valued attribute sorts by its primary value (RFC 7644 §3.4.2.3): `users.email` is that.
  emails: { column: 'users.email', caseInsensitive: true },
  'emails.value': { column: 'users.email', caseInsensitive: true },
  active: { column: 'users.active', caseInsensitive: false },
  'meta.created': { column: 'users.created_at', caseInsensitive: false },
  'meta.lastModified': { column: 'users.updated_at', caseInsensitive: false },
  employeeNumber: { column: 'users.employee_number', caseInsensitive: true },
  department: { column: 'users.department', caseInsensitive: true },
  'manager.value': { column: 'users.manager_id', caseInsensitive: false },
};

const GROUP_SORT: Record<string, SortKey> = {
  id: { column: 'groups.id', caseInsensitive: false },
  externalId: { column: 'groups.external_id', caseInsensitive: false },
  displayName: { column: 'groups.display_name', caseInsensitive: true },
  'meta.created': { column: 'groups.created_at', caseInsensitive: false },
  'meta.lastModified': { column: 'groups.updated_at', caseInsensitive: false },
};

interface Ordering {
  key: Expression<unknown>;
  direction: 'asc' | 'desc';
}

function ordering(kind: ResourceKind, table: 'users' | 'groups', query: ScimListQuery): Ordering {
  const direction = query.sortOrder === 'descending' ? 'desc' : 'asc';
  if (query.sortBy === undefined) return { key: sql.ref(`${table}.created_at`), direction };
  const resolved = resolvePath(kind, query.sortBy);
  const path =
    resolved && 'attribute' in resolved
      ? resolved.subAttribute
        ? `${resolved.attribute.name}.${resolved.subAttribute.name}`
        : resolved.attribute.name
      : undefined;
  const sortKey = path === undefined ? undefined : (kind === 'User' ? USER_SORT : GROUP_SORT)[path];
  if (!sortKey) throw new ScimQueryError('invalidValue', `sortBy: ${query.sortBy} is not a sortable attribute of a ${kind}`);
  const ref = sql.ref(sortKey.column);
  return { key: sortKey.caseInsensitive ? sql`lower(${ref})` : ref, direction };
}

function condition(kind: ResourceKind, query: ScimListQuery): Expression<SqlBool> {
  return query.filter === undefined ? sql<SqlBool>`true` : filterCondition(kind, query.tenantId, parseScimFilter(query.filter));
}

/**
 * One page and the total. Without a filter the total is an index-only count beside an index-ordered
 * page that stops at `count` rows. With one, the filter usually has to look at every row of the
 * tenant, so the page carries the total as `count(*) over ()` and the rows are looked at once, not
 * twice; only a page past the end needs the count on its own.
 */
async function pageAndTotal(
  query: ScimListQuery,
  count: () => Promise<{ n: number | string }>,
  page: (withTotal: boolean) => Promise<{ id: string; total?: number | string }[]>,
): Promise<ScimListResult> {
  if (query.filter !== undefined && query.count > 0) {
    const rows = await page(true);
    const first = rows[0];
    if (first) return { totalResults: Number(first.total), ids: rows.map((r) => r.id) };
    if (query.startIndex === 1) return { totalResults: 0, ids: [] };
    return { totalResults: Number((await count()).n), ids: [] };
  }
  const [total, rows] = await Promise.all([count(), query.count === 0 ? [] : page(false)]);
  return { totalResults: Number(total.n), ids: rows.map((r) => r.id) };
}

const totalColumn = sql<number | string>`count(*) over ()`;

/** Ids of the tenant's users that match, in the requested order, and how many match in all. */
export async function listUserIds(db: Executor, query: ScimListQuery): Promise<ScimListResult> {
  const where = condition('User', query);
  const order = ordering('User', 'users', query);
  const matching = db.selectFrom('users').where('users.tenant_id', '=', query.tenantId).where(where);
  return pageAndTotal(
    query,
    () => matching.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    (withTotal) =>
      matching
        .select('users.id')
        .$if(withTotal, (q) => q.select(totalColumn.as('total')))
        .orderBy(order.key, (ob) => ob[order.direction]().nullsLast())
        .orderBy('users.id', order.direction)
        .limit(query.count)
        .offset(query.startIndex - 1)
        .execute(),
  );
}

/** Ids of the tenant's groups that match, in the requested order, and how many match in all. */
export async function listGroupIds(db: Executor, query: ScimListQuery): Promise<ScimListResult> {
  const where = condition('Group', query);
  const order = ordering('Group', 'groups', query);
  const matching = db.selectFrom('groups').where('groups.tenant_id', '=', query.tenantId).where(where);
  return pageAndTotal(
    query,
    () => matching.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    (withTotal) =>
      matching
        .select('groups.id')
        .$if(withTotal, (q) => q.select(totalColumn.as('total')))
        .orderBy(order.key, (ob) => ob[order.direction]().nullsLast())
        .orderBy('groups.id', order.direction)
        .limit(query.count)
        .offset(query.startIndex - 1)
        .execute(),
  );
}
