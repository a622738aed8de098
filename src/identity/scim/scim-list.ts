/**
 * The SCIM list query (RFC 7644 §3.4.2): filter, sort and page one tenant's users or groups in SQL,
 * returning the matching ids in order and the total count. The caller loads the resources by id.
 */
import { sql, type Expression, type SqlBool } from 'kysely';
import type { Executor } from '../../db/transaction.ts';
import { countMatchingUsers, matchingUserIds } from '../../users/provisioned-users.repository.ts';
import { resolvePath, storedAttributes } from './scim-attribute-path.ts';
import { findAttribute, type ResourceKind } from './scim-schema.ts';
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

interface ScimListResult {
  totalResults: number;
  ids: string[];
}

interface Ordering {
  key: Expression<unknown>;
  direction: 'asc' | 'desc';
}

/**
 * The column `sortBy` names, from the attribute table's storage facts. A multi-valued attribute (or
 * its `value`) sorts by its primary value (RFC 7644 §3.4.2.3), which its column holds (`users.email`).
 * Strings with `caseExact: false` sort by `lower()`, so `alice` and `Bob` sort as a person expects.
 */
function sortColumn(kind: ResourceKind, sortBy: string): { value: Expression<unknown>; lower: boolean } | undefined {
  const resolved = resolvePath(kind, sortBy);
  if (!resolved || !('attribute' in resolved)) return undefined;
  const { attribute, subAttribute } = resolved;
  const primary = attribute.multiValued && (!subAttribute || subAttribute.name === 'value');
  const stored = storedAttributes(kind)[subAttribute && !primary ? `${attribute.name}.${subAttribute.name}` : attribute.name];
  if (!stored || (attribute.multiValued && !primary)) return undefined;
  const compared = primary ? findAttribute(attribute.subAttributes, 'value')! : stored.attribute;
  return { value: stored.value, lower: compared.type === 'string' && !compared.caseExact && !stored.uuid };
}

function ordering(kind: ResourceKind, table: 'users' | 'groups', query: ScimListQuery): Ordering {
  const direction = query.sortOrder === 'descending' ? 'desc' : 'asc';
  if (query.sortBy === undefined) return { key: sql.ref(`${table}.created_at`), direction };
  const sortKey = sortColumn(kind, query.sortBy);
  if (!sortKey) throw new ScimQueryError('invalidValue', `sortBy: ${query.sortBy} is not a sortable attribute of a ${kind}`);
  return { key: sortKey.lower ? sql`lower(${sortKey.value})` : sortKey.value, direction };
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

/** Ids of the tenant's users that match, in the requested order, and how many match in all (src/users/ runs the queries). */
export async function listUserIds(db: Executor, query: ScimListQuery): Promise<ScimListResult> {
  const where = condition('User', query);
  const order = ordering('User', 'users', query);
  return pageAndTotal(
    query,
    () => countMatchingUsers(db, query.tenantId, where),
    (withTotal) => matchingUserIds(db, query.tenantId, { where, order, offset: query.startIndex - 1, limit: query.count, withTotal }),
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
