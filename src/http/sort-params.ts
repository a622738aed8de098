/**
 * Parses the repeatable `sort=<field>,<asc|desc>` parameter against the fields an operation
 * documents (its `x-sort-fields`). The parameter's pattern is checked by the generated validator; the
 * field list is per operation, so an unknown field is reported here, as a 400 on `query.sort`.
 */
import { validationFailed } from '../errors.ts';

type SortDirection = 'asc' | 'desc';

export interface SortOrder<F extends string> {
  field: F;
  direction: SortDirection;
}

export function parseSort<F extends string>(
  values: readonly string[] | undefined,
  allowed: readonly F[],
  fallback: readonly SortOrder<F>[],
): SortOrder<F>[] {
  if (!values || values.length === 0) return [...fallback];
  const orders: SortOrder<F>[] = [];
  for (const value of values) {
    const [field, direction] = value.split(',') as [string, SortDirection];
    if (!(allowed as readonly string[]).includes(field)) {
      throw validationFailed([
        { field: ['sort'], source: 'parameter', message: `cannot sort by "${field}"; sortable fields: ${allowed.join(', ')}` },
      ]);
    }
    // A field named twice keeps its first (highest-precedence) direction.
    if (!orders.some((o) => o.field === field)) orders.push({ field: field as F, direction });
  }
  return orders;
}
