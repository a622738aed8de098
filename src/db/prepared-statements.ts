/**
 * Named (prepared) statements on PostgreSQL for the queries every request runs. Kysely sends each
 * statement unnamed, so PostgreSQL parses and plans it every time; a statement whose text starts
 * with `preparedName(name)` is sent by the pooled client under that name instead, parsed and planned
 * once per connection. The marker is an SQL comment, so the same text runs unchanged on PGlite and
 * through anything that logs or counts statements.
 *
 * A name stands for one text on every connection (PostgreSQL refuses a second text under a name a
 * connection already prepared): give each marked statement its own name.
 *
 * PGlite's query API has no named statements, so there the SQL-level `PREPARE`/`EXECUTE` do the same
 * (below): `EXECUTE` takes no bound parameters, so the values go in as quoted literals of unknown
 * type, which PostgreSQL coerces to each parameter's type exactly as it reads a bound text value.
 */
import type { PGlite } from '@electric-sql/pglite';
import pg from 'pg';

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

/** `'text'` literals of unknown type for each value, or null when one is not a plain value (then the statement runs as it is). */
function literals(values: readonly unknown[]): string[] | null {
  const out: string[] = [];
  for (const value of values) {
    if (value === null || value === undefined) out.push('NULL');
    else if (typeof value === 'string') out.push(pg.escapeLiteral(value));
    else if ((typeof value === 'number' && Number.isFinite(value)) || typeof value === 'boolean') out.push(`'${String(value)}'`);
    else return null;
  }
  return out;
}

/**
 * Makes `pglite` prepare marked statements once (`PREPARE`) and run them with `EXECUTE`, so PGlite
 * plans them once, not per request. A statement PGlite cannot prepare runs as it is, as does one
 * with a value that is not a string, number, boolean or null.
 */
export function executeMarkedStatementsPrepared(pglite: PGlite): void {
  const query = pglite.query.bind(pglite) as (...args: unknown[]) => Promise<unknown>;
  const prepared = new Map<string, Promise<boolean>>();
  // Kysely's PGlite dialect calls query(text, values) and awaits the result; every other form passes through.
  (pglite as { query: unknown }).query = async (...args: unknown[]) => {
    const [text, values = []] = args;
    const name = args.length <= 2 && typeof text === 'string' ? MARKER.exec(text)?.[1] : undefined;
    const inline = name === undefined || !Array.isArray(values) ? null : literals(values);
    if (name === undefined || inline === null) return query(...args);
    let ready = prepared.get(name);
    if (!ready) {
      ready = query(`prepare "${name}" as ${text as string}`).then(
        () => true,
        () => false,
      );
      prepared.set(name, ready);
    }
    if (!(await ready)) return query(...args);
    return query(`execute "${name}"${inline.length ? `(${inline.join(', ')})` : ''}`);
  };
}
