/**
 * Optimistic concurrency: a conditional write names the versions it was based on and the UPDATE
 * compares them in its WHERE clause, so the check and the write are one atomic statement.
 */
import { sql, type RawBuilder } from 'kysely';

/** The versions a write accepts; undefined writes unconditionally. Empty accepts none. */
export type ExpectedVersions = readonly number[] | undefined;

export function acceptsVersion(expected: ExpectedVersions, version: number): boolean {
  return expected === undefined || expected.includes(version);
}

/** The WHERE condition of a compare-and-set on `column` (an empty list can never match). */
export function versionCondition(column: string, expected: readonly number[]): RawBuilder<boolean> {
  return expected.length ? sql<boolean>`${sql.ref(column)} in (${sql.join([...expected])})` : sql<boolean>`false`;
}
