/**
 * A server span for each HTTP request, named by method and route template (`GET /api/v1/products/:id`;
 * the method alone when no route matched), ended with the response status. An incoming W3C
 * `traceparent` is its parent. The span is made active for the request's hooks and handler, so the
 * GraphQL operation and the database statements it causes are its children: once in onRequest (the
 * hooks that run before the body is read) and again in preValidation (the body arrives on the
 * socket's events, outside the request's async context).
 */
import { context, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Context, type Span } from '@opentelemetry/api';
import {
  ATTR_CLIENT_ADDRESS,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_URL_PATH,
  ATTR_USER_AGENT_ORIGINAL,
} from '@opentelemetry/semantic-conventions';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Tracing } from './tracing.ts';

const headerGetter = {
  keys: (carrier: FastifyRequest['headers']) => Object.keys(carrier),
  get: (carrier: FastifyRequest['headers'], key: string) => carrier[key],
};

/** Adds the hooks to the root instance; call it before any area registers. */
export function traceHttpRequests(http: FastifyInstance, { tracer, propagator }: Tracing): void {
  const spans = new WeakMap<FastifyRequest, { span: Span; active: Context }>();

  http.addHook('onRequest', (request, _reply, done) => {
    const parent = propagator.extract(ROOT_CONTEXT, request.headers, headerGetter);
    const route = request.routeOptions.url;
    const userAgent = request.headers['user-agent'];
    const span = tracer.startSpan(
      route ? `${request.method} ${route}` : request.method,
      {
        kind: SpanKind.SERVER,
        attributes: {
          [ATTR_HTTP_REQUEST_METHOD]: request.method,
          [ATTR_URL_PATH]: request.url.split('?', 1)[0]!,
          [ATTR_CLIENT_ADDRESS]: request.ip,
          ...(route ? { [ATTR_HTTP_ROUTE]: route } : {}),
          ...(userAgent ? { [ATTR_USER_AGENT_ORIGINAL]: userAgent } : {}),
        },
      },
      parent,
    );
    const active = trace.setSpan(parent, span);
    spans.set(request, { span, active });
    context.with(active, done);
  });
  http.addHook('preValidation', (request, _reply, done) => {
    const entry = spans.get(request);
    if (entry) context.with(entry.active, done);
    else done();
  });
  http.addHook('onError', (request, _reply, error, done) => {
    spans.get(request)?.span.recordException(error);
    done();
  });
  http.addHook('onResponse', (request, reply, done) => {
    const entry = spans.get(request);
    if (entry) {
      spans.delete(request);
      entry.span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, reply.statusCode);
      if (reply.statusCode >= 500) entry.span.setStatus({ code: SpanStatusCode.ERROR });
      entry.span.end();
    }
    done();
  });
  // The client went away before the answer: the span ends without a status.
  http.addHook('onRequestAbort', (request, done) => {
    const entry = spans.get(request);
    if (entry) {
      spans.delete(request);
      entry.span.setStatus({ code: SpanStatusCode.ERROR, message: 'request aborted' });
      entry.span.end();
    }
    done();
  });
}
