/**
 * Named (prepared) statements on PostgreSQL for the queries every request runs. Kysely sends each
 * statement unnamed, so PostgreSQL parses and plans it every time; a statement whose text starts
 * with `preparedName(name)` is sent by the pooled client under that name instead, parsed and planned
 * once per connection. The marker is an SQL comment, so the same text runs unchanged on PGlite and
 * through anything that logs or counts statements.
 *
 * A name stands for one text on every connection (PostgreSQL refuses a second text under a name a
 * connection already prepared): give each marked statement its own name.
 */
import type pg from 'pg';

const MARKER = /^\/\* prepared: ([a-z0-9-]+) \*\//;

/** The comment that makes a statement a named one: put it first in the statement's text. */
export function preparedName(name: string): string {
  if (!/^[a-z0-9-]+$/.test(name)) throw new Error(`not a statement name: ${name}`);
  return `/* prepared: ${name} */`;
}

/** Makes `client` send marked statements as named ones (for each client the pool connects). */
export function sendMarkedStatementsNamed(client: pg.PoolClient): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  // Kysely calls query(text, values) and awaits the result; every other form passes through.
  (client as { query: unknown }).query = (...args: unknown[]) => {
    const [text, values] = args;
    const name = args.length <= 2 && typeof text === 'string' ? MARKER.exec(text)?.[1] : undefined;
    return name ? query({ name, text, values }) : query(...args);
  };
}
