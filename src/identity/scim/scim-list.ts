/**
 * PROVISIONAL (i14-scim): a minimal real implementation of the list contract (MAPPING.md), to be
 * replaced by the i14-filter branch's filter-to-SQL translation at merge. It understands one
 * comparison `<attribute> eq "<value>"` on a handful of attributes, translated to SQL.
 */
import { sql, type Kysely } from 'kysely';
import type { DB } from '../../../generated/db/types.ts';
import { ScimQueryError } from './scim-query-error.ts';

/** The `filter.maxResults` of ServiceProviderConfig. */
export const SCIM_MAX_RESULTS = 200;

export interface ScimListQuery {
  tenantId: string;
  filter?: string;
  startIndex: number;
  count: number;
  sortBy?: string;
  sortOrder?: 'ascending' | 'descending';
}

type Table = 'users' | 'groups';

/** SCIM attribute (lower case) → column and whether it compares case-insensitively. */
const COLUMNS: Record<Table, Record<string, { column: string; caseExact: boolean }>> = {
  users: {
    id: { column: 'id', caseExact: true },
    username: { column: 'username', caseExact: false },
    displayname: { column: 'display_name', caseExact: false },
    externalid: { column: 'external_id', caseExact: true },
    'meta.created': { column: 'created_at', caseExact: true },
    'meta.lastmodified': { column: 'updated_at', caseExact: true },
  },
  groups: {
    id: { column: 'id', caseExact: true },
    displayname: { column: 'display_name', caseExact: false },
    externalid: { column: 'external_id', caseExact: true },
    'meta.created': { column: 'created_at', caseExact: true },
    'meta.lastmodified': { column: 'updated_at', caseExact: true },
  },
};

const CORE_URN = /^urn:ietf:params:scim:schemas:core:2\.0:(user|group):/i;
const EQ = /^\s*([A-Za-z][\w.:-]*)\s+eq\s+"((?:[^"\\]|\\.)*)"\s*$/i;

function column(table: Table, attribute: string, what: 'filter' | 'sortBy') {
  const found = COLUMNS[table][attribute.replace(CORE_URN, '').toLowerCase()];
  if (!found) {
    if (what === 'filter') throw new ScimQueryError('invalidFilter', `Unsupported filter attribute: ${attribute}`);
    throw new ScimQueryError('invalidValue', `Unsupported sortBy attribute: ${attribute}`);
  }
  return found;
}

async function listIds(db: Kysely<DB>, table: Table, query: ScimListQuery): Promise<{ totalResults: number; ids: string[] }> {
  let condition = sql<boolean>`true`;
  if (query.filter !== undefined) {
    const match = EQ.exec(query.filter);
    if (!match) throw new ScimQueryError('invalidFilter', `Unsupported filter: ${query.filter.slice(0, 200)}`);
    const { column: name, caseExact } = column(table, match[1]!, 'filter');
    let value: string;
    try {
      value = JSON.parse(`"${match[2]!}"`) as string;
    } catch {
      throw new ScimQueryError('invalidFilter', 'The filter holds a malformed string');
    }
    const ref = sql.ref(`${table}.${name}`);
    condition = caseExact ? sql<boolean>`${ref}::text = ${value}` : sql<boolean>`lower(${ref}) = lower(${value})`;
  }
  const order = query.sortBy === undefined ? null : column(table, query.sortBy, 'sortBy').column;
  const direction = sql.raw(query.sortOrder === 'descending' ? 'desc' : 'asc');
  const base = db.selectFrom(table).where(`${table}.tenant_id`, '=', query.tenantId).where(condition);
  const [total, rows] = await Promise.all([
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    query.count === 0
      ? Promise.resolve([])
      : base
          .select(sql<string>`${sql.ref(`${table}.id`)}::text`.as('id'))
          .orderBy(order ? sql`${sql.ref(`${table}.${order}`)} ${direction}` : sql`${sql.ref(`${table}.created_at`)}`)
          .orderBy(sql`${sql.ref(`${table}.created_at`)}`)
          .orderBy(sql`${sql.ref(`${table}.id`)}`)
          .limit(query.count)
          .offset(query.startIndex - 1)
          .execute(),
  ]);
  return { totalResults: Number(total.n), ids: rows.map((r) => r.id) };
}

export function listUserIds(db: Kysely<DB>, query: ScimListQuery): Promise<{ totalResults: number; ids: string[] }> {
  return listIds(db, 'users', query);
}

export function listGroupIds(db: Kysely<DB>, query: ScimListQuery): Promise<{ totalResults: number; ids: string[] }> {
  return listIds(db, 'groups', query);
}
