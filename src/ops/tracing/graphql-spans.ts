/**
 * A span for each GraphQL operation, on HTTP and on the WebSocket alike, named by its type and name
 * (`query ProductList`, `subscription` for an anonymous one). Over HTTP it is a child of the
 * request's server span; over the WebSocket it starts a trace of its own. A subscription's span
 * covers setting it up (subscribe returning its event stream), not the life of the stream. The
 * operation's resolvers run inside it, so the database statements they cause are its children.
 */
import { SpanStatusCode, type Span } from '@opentelemetry/api';
import { getOperationAST, type ExecutionResult } from 'graphql';
import type { OperationWrapper } from '../../graphql/execute.ts';
import type { Tracing } from './tracing.ts';

function ended(span: Span, result: unknown): void {
  const errors = (result as ExecutionResult | null)?.errors;
  if (errors?.length) {
    span.setAttribute('graphql.error.count', errors.length);
    span.setStatus({ code: SpanStatusCode.ERROR, message: errors[0]!.message });
  }
  span.end();
}

function failed(span: Span, error: unknown): never {
  span.recordException(error as Error);
  span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
  span.end();
  throw error;
}

export function graphqlSpans({ tracer }: Tracing): OperationWrapper {
  return (args, run) => {
    const operation = getOperationAST(args.document, args.operationName);
    const type = operation?.operation ?? 'operation';
    const name = operation?.name?.value;
    const attributes = { 'graphql.operation.type': type, ...(name ? { 'graphql.operation.name': name } : {}) };
    return tracer.startActiveSpan(name ? `${type} ${name}` : type, { attributes }, (span) => {
      let result;
      try {
        result = run();
      } catch (error) {
        return failed(span, error);
      }
      if (!(result instanceof Promise)) {
        ended(span, result);
        return result;
      }
      return result.then(
        (settled) => {
          ended(span, settled);
          return settled;
        },
        (error: unknown) => failed(span, error),
      );
    });
  };
}
