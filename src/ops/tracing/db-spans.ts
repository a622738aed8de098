/**
 * One client span per statement the database runs, on PGlite and PostgreSQL alike: the dialect's
 * driver is wrapped so that each connection it hands Kysely runs its statements inside a span. The
 * span carries the SQL text as compiled, with `$1`-style placeholders and never the parameter values.
 * Statements run outside any traced operation (migrations, the delivery worker's claims and polls,
 * LISTEN) are not traced: they would each start a trace of their own.
 */
import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import {
  ATTR_DB_OPERATION_NAME,
  ATTR_DB_QUERY_TEXT,
  ATTR_DB_SYSTEM_NAME,
  ATTR_ERROR_TYPE,
  DB_SYSTEM_NAME_VALUE_POSTGRESQL,
} from '@opentelemetry/semantic-conventions';
import type { CompiledQuery, DatabaseConnection, Dialect, QueryResult } from 'kysely';
import type { Tracing } from './tracing.ts';

const TRACED = Symbol('traced statements');

/** The statement's first keyword (SELECT, INSERT, BEGIN…), the span's name. */
function operationOf(sql: string): string {
  const match = /^\s*(?:\(\s*)*([A-Za-z]+)/.exec(sql);
  return match ? match[1]!.toUpperCase() : 'SQL';
}

function traceConnection(connection: DatabaseConnection, { tracer }: Tracing): DatabaseConnection {
  const marked = connection as DatabaseConnection & { [TRACED]?: true };
  if (marked[TRACED]) return connection;
  marked[TRACED] = true;
  const execute = connection.executeQuery.bind(connection);
  connection.executeQuery = <R>(compiled: CompiledQuery): Promise<QueryResult<R>> => {
    if (!trace.getSpan(context.active())) return execute<R>(compiled);
    const operation = operationOf(compiled.sql);
    const attributes = {
      [ATTR_DB_SYSTEM_NAME]: DB_SYSTEM_NAME_VALUE_POSTGRESQL,
      [ATTR_DB_OPERATION_NAME]: operation,
      [ATTR_DB_QUERY_TEXT]: compiled.sql,
    };
    return tracer.startActiveSpan(operation, { kind: SpanKind.CLIENT, attributes }, async (span) => {
      try {
        return await execute<R>(compiled);
      } catch (error) {
        const code = (error as { code?: unknown }).code;
        span.setAttribute(ATTR_ERROR_TYPE, typeof code === 'string' ? code : (error as Error).name);
        span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
        throw error;
      } finally {
        span.end();
      }
    });
  };
  return connection;
}

/** The dialect, its connections running each statement in a span. */
export function tracedDialect(dialect: Dialect, tracing: Tracing): Dialect {
  return {
    createAdapter: () => dialect.createAdapter(),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createIntrospector: (db) => dialect.createIntrospector(db),
    createDriver: () => {
      const driver = dialect.createDriver();
      const acquire = driver.acquireConnection.bind(driver);
      driver.acquireConnection = async () => traceConnection(await acquire(), tracing);
      return driver;
    },
  };
}
