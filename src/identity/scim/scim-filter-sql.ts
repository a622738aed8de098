/**
 * Translates a parsed SCIM filter into one SQL condition over `users` or `groups`, so the database
 * does the filtering (never the application after loading a tenant). Values only ever reach the SQL
 * as parameters; LIKE patterns are escaped. Multi-valued attributes become `exists` sub-queries:
 * `emails` over the stored jsonb array (or, for a user SCIM never wrote, the one `users.email`),
 * `groups` and `members` over group_members, joined to rows of the same tenant only.
 *
 * Logic is two-valued, as a SCIM client expects: a comparison with an absent attribute is false, so
 * `not (x eq "a")` and `x ne "a"` both match a resource without `x`. Comparisons stay plain SQL
 * (so `lower(username) = lower($1)` meets its index) and `not` is written `(…) is not true`.
 */
import { expressionBuilder, sql, type Expression, type SqlBool } from 'kysely';
import type { DB } from '../../../generated/db/types.ts';
import { resolvePath, storedAttributes } from './scim-attribute-path.ts';
import { findAttribute, type AttributeDefinition, type ResourceKind } from './scim-schema.ts';
import type { ScimFilter } from './scim-filter-parse.ts';
import { ScimQueryError } from './scim-query-error.ts';

type Condition = Expression<SqlBool>;

/** A stored value a filter can compare: its SQL, its SCIM type, and whether comparisons keep case. */
interface Operand {
  sql: Expression<unknown>;
  type: 'string' | 'boolean' | 'dateTime' | 'uuid';
  caseExact: boolean;
}

/** A multi-valued attribute: a test of "some element satisfies `condition`". */
interface MultiValued {
  exists(condition: Condition): Condition;
  /** The operand of a sub-attribute of the current element. */
  subAttributes: Record<string, Operand>;
}

const eb = expressionBuilder<DB, 'users' | 'groups'>();
const invalid = (message: string) => new ScimQueryError('invalidFilter', message);

const string = (ref: Expression<unknown>, caseExact = false): Operand => ({ sql: ref, type: 'string', caseExact });
const col = (name: string) => sql.ref(name);

/** The single-valued attributes kept in columns (the attribute table's storage facts), by canonical path. */
function scalarOperands(kind: ResourceKind): Record<string, Operand> {
  const operands: Record<string, Operand> = {};
  for (const [path, { attribute, value, uuid }] of Object.entries(storedAttributes(kind))) {
    if (attribute.multiValued) continue;
    const type = uuid ? 'uuid' : attribute.type;
    // A uuid's hex digits compare in any case.
    if (type === 'string' || type === 'uuid' || type === 'boolean' || type === 'dateTime') {
      operands[path] = { sql: value, type, caseExact: !uuid && attribute.caseExact };
    }
  }
  return operands;
}

/** Where each filterable attribute of each resource type is stored; keys are canonical paths. */
function storage(kind: ResourceKind, tenantId: string) {
  const scalars = scalarOperands(kind);
  if (kind === 'User') {
    // A user SCIM never wrote (`emails` null) has exactly one: `users.email`, primary (see MAPPING);
    // one written without `emails` has `[]`, and none.
    const emailElements = sql`jsonb_array_elements(case when jsonb_typeof(users.emails) = 'array' then users.emails else jsonb_build_array(jsonb_build_object('value', users.email, 'primary', true)) end)`;
    const element = (key: string) => sql`(e.value ->> ${sql.lit(key)})`;
    const multi: Record<string, MultiValued> = {
      emails: {
        exists: (condition) => sql<SqlBool>`exists (select 1 from ${emailElements} as e where ${condition})`,
        subAttributes: {
          value: string(element('value')),
          type: string(element('type')),
          display: string(element('display')),
          // Stored as sent: a JSON boolean, or the string "True" some clients send.
          primary: {
            sql: sql`(case lower(e.value ->> 'primary') when 'true' then true when 'false' then false end)`,
            type: 'boolean',
            caseExact: true,
          },
        },
      },
      groups: {
        exists: (condition) =>
          eb.exists(
            eb
              .selectFrom('group_members as gm')
              .innerJoin('groups as g', 'g.id', 'gm.group_id')
              .select(sql.lit(1).as('one'))
              .whereRef('gm.user_id', '=', 'users.id')
              .where('g.tenant_id', '=', tenantId)
              .where(condition),
          ),
        subAttributes: {
          value: { sql: col('g.id'), type: 'uuid', caseExact: false },
          display: string(col('g.display_name')),
        },
      },
    };
    const complex: Record<string, Condition> = {
      name: sql<SqlBool>`(${present(scalars['name.givenName']!)} or ${present(scalars['name.familyName']!)})`,
      manager: present(scalars['manager.value']!),
      meta: sql<SqlBool>`true`,
    };
    return { scalars, multi, complex };
  }
  const multi: Record<string, MultiValued> = {
    members: {
      exists: (condition) =>
        eb.exists(
          eb
            .selectFrom('group_members as gm')
            .innerJoin('users as u', 'u.id', 'gm.user_id')
            .select(sql.lit(1).as('one'))
            .whereRef('gm.group_id', '=', 'groups.id')
            .where('u.tenant_id', '=', tenantId)
            .where(condition),
        ),
      subAttributes: {
        value: string(col('u.id'), true),
        display: string(col('u.display_name')),
      },
    },
  };
  const complex: Record<string, Condition> = { meta: sql<SqlBool>`true` };
  return { scalars, multi, complex };
}

type Storage = ReturnType<typeof storage>;

/** `pr`: RFC 7644 says present means a non-empty, non-null value. */
function present(operand: Operand): Condition {
  return operand.type === 'string'
    ? sql<SqlBool>`(${operand.sql} is not null and ${operand.sql} <> '')`
    : sql<SqlBool>`(${operand.sql} is not null)`;
}

const not = (condition: Condition): Condition => sql<SqlBool>`((${condition}) is not true)`;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(Z|([+-])(\d{2}):(\d{2}))$/;

/** An xsd:dateTime with a zone, every field in range, so PostgreSQL never refuses the cast. */
function isDateTime(value: string): boolean {
  const m = DATE_TIME.exec(value);
  if (!m) return false;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  const offsetOk = m[8] === 'Z' || (Number(m[10]) <= 14 && Number(m[11]) <= 59);
  return year >= 1 && month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth && hour <= 23 && minute <= 59 && second <= 59 && offsetOk;
}

/** `%`, `_` and the escape character itself stand for themselves in the pattern. */
const escapeLike = (value: string) => value.replace(/[\\%_]/g, (c) => `\\${c}`);

type CompareOp = 'eq' | 'ne' | 'co' | 'sw' | 'ew' | 'gt' | 'ge' | 'lt' | 'le';
const RELATIONS = { eq: '=', gt: '>', ge: '>=', lt: '<', le: '<=' } as const;

function compare(path: string, operand: Operand, op: CompareOp, value: unknown): Condition {
  if (value === null) {
    // `eq null` asks for an absent value, `ne null` for a present one; nothing else orders null.
    if (op === 'eq') return not(present(operand));
    if (op === 'ne') return present(operand);
    throw invalid(`${path} ${op} null is not a comparison`);
  }
  if (op === 'ne') return not(compare(path, operand, 'eq', value));
  switch (operand.type) {
    case 'boolean':
      if (op !== 'eq') throw invalid(`${path} is a boolean: only eq, ne and pr apply`);
      if (typeof value !== 'boolean') throw invalid(`${path} is a boolean: compare it with true or false`);
      return sql<SqlBool>`(${operand.sql} = ${value})`;
    case 'dateTime':
      if (op === 'co' || op === 'sw' || op === 'ew') throw invalid(`${path} is a dateTime: ${op} does not apply`);
      if (typeof value !== 'string' || !isDateTime(value)) {
        throw invalid(`${path} is a dateTime: ${JSON.stringify(value)} is not one such as "2026-01-31T09:30:00Z"`);
      }
      // The columns keep microseconds, the representation shows milliseconds: compared at the
      // precision a client reads, `meta.lastModified gt "<the value it read>"` leaves that resource out.
      return sql<SqlBool>`(date_trunc('milliseconds', ${operand.sql}) ${sql.raw(RELATIONS[op])} cast(${value} as timestamptz))`;
    case 'uuid':
    case 'string': {
      if (typeof value !== 'string') throw invalid(`${path} is a string: compare it with a quoted value`);
      if (operand.type === 'uuid' && op === 'eq') {
        // An id that is no UUID names no group: no match, rather than PostgreSQL refusing the cast.
        return UUID.test(value) ? sql<SqlBool>`(${operand.sql} = cast(${value} as uuid))` : sql<SqlBool>`false`;
      }
      const stored = operand.type === 'uuid' ? sql`cast(${operand.sql} as text)` : operand.sql;
      const left = operand.caseExact ? stored : sql`lower(${stored})`;
      const right = (v: string) => (operand.caseExact ? sql`${v}` : sql`lower(${v})`);
      if (op === 'co') return sql<SqlBool>`(${left} like ${right(`%${escapeLike(value)}%`)})`;
      if (op === 'sw') return sql<SqlBool>`(${left} like ${right(`${escapeLike(value)}%`)})`;
      if (op === 'ew') return sql<SqlBool>`(${left} like ${right(`%${escapeLike(value)}`)})`;
      return sql<SqlBool>`(${left} ${sql.raw(RELATIONS[op])} ${right(value)})`;
    }
  }
}

/** What a filter's attribute expression compares: a scalar, or some element of a multi-valued attribute. */
type Scope = { resource: Storage; element?: { name: string; attribute: AttributeDefinition; multi?: MultiValued } };

function attributeTest(
  scope: Scope,
  kind: ResourceKind,
  path: string,
  test: (operand: Operand, shown: string) => Condition,
  isPresence: boolean,
): Condition {
  if (scope.element) {
    const { name, attribute, multi } = scope.element;
    const sub = findAttribute(attribute.subAttributes, path);
    if (!sub) throw invalid(`${name} has no sub-attribute ${path}`);
    const shown = `${name}.${sub.name}`;
    const operand = multi ? multi.subAttributes[sub.name] : scope.resource.scalars[`${attribute.name}.${sub.name}`];
    if (!operand) throw invalid(`${shown} cannot be used in a filter`);
    return test(operand, shown);
  }
  const resolved = resolvePath(kind, path);
  if (!resolved || !('attribute' in resolved)) throw invalid(`${path} is not an attribute of a ${kind}`);
  const { attribute, subAttribute } = resolved;
  const shown = subAttribute ? `${attribute.name}.${subAttribute.name}` : attribute.name;
  const multi = scope.resource.multi[attribute.name];
  if (multi) {
    // Without a sub-attribute, a multi-valued attribute is compared by its `value` (RFC 7644 §3.4.2.2).
    if (!subAttribute && isPresence) return multi.exists(sql<SqlBool>`true`);
    const operand = multi.subAttributes[subAttribute?.name ?? 'value'];
    if (!operand) throw invalid(`${shown} cannot be used in a filter`);
    return multi.exists(test(operand, shown));
  }
  const operand = scope.resource.scalars[shown];
  if (operand) return test(operand, shown);
  const complex = scope.resource.complex[shown];
  if (complex && isPresence) return complex;
  if (complex) throw invalid(`${shown} is complex: compare one of its sub-attributes, or use pr`);
  throw invalid(`${shown} cannot be used in a filter`);
}

function translate(node: ScimFilter, kind: ResourceKind, scope: Scope): Condition {
  switch (node.op) {
    case 'and':
      return eb.and(node.filters.map((f) => translate(f, kind, scope)));
    case 'or':
      return eb.or(node.filters.map((f) => translate(f, kind, scope)));
    case 'not':
      return not(translate(node.filter, kind, scope));
    case 'pr':
      return attributeTest(scope, kind, node.attrPath, (operand) => present(operand), true);
    case '[]': {
      if (scope.element) throw invalid(`A value path cannot be nested in ${scope.element.name}[…]`);
      const resolved = resolvePath(kind, node.attrPath);
      if (!resolved || !('attribute' in resolved) || resolved.subAttribute || resolved.attribute.type !== 'complex') {
        throw invalid(`${node.attrPath}[…] does not name a complex attribute of a ${kind}`);
      }
      const { attribute } = resolved;
      const multi = scope.resource.multi[attribute.name];
      const inner = translate(node.valFilter, kind, { resource: scope.resource, element: { name: attribute.name, attribute, multi } });
      return multi ? multi.exists(inner) : inner;
    }
    default: {
      const op = node.op.toLowerCase() as CompareOp;
      return attributeTest(scope, kind, node.attrPath, (operand, shown) => compare(shown, operand, op, node.compValue), false);
    }
  }
}

/**
 * The SQL condition for `filter` over the `users` (User) or `groups` (Group) table of `tenantId`.
 * The caller adds `tenant_id = tenantId` for the resource table itself; the sub-queries here keep
 * their joined rows to the same tenant. Throws ScimQueryError('invalidFilter') for attributes the
 * resource type does not have and for comparisons that do not fit the attribute's type.
 */
export function filterCondition(kind: ResourceKind, tenantId: string, filter: ScimFilter): Condition {
  return translate(filter, kind, { resource: storage(kind, tenantId) });
}
