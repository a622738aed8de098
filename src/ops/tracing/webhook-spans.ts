/**
 * A client span for each webhook delivery attempt (`webhook POST`), with the endpoint, the event,
 * the attempt's number and the response status (or the transport error). It starts a trace of its
 * own (the worker runs apart from any request), and the request it makes carries a W3C `traceparent`
 * naming this span, so a receiver that traces continues the same trace.
 */
import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import {
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_URL_FULL,
} from '@opentelemetry/semantic-conventions';
import type { AttemptWrapper } from '../../webhooks/delivery/delivery-worker.ts';
import type { Tracing } from './tracing.ts';

const headerSetter = {
  set: (carrier: Record<string, string>, key: string, value: string) => {
    carrier[key] = value;
  },
};

export function webhookSpans({ tracer, propagator }: Tracing): AttemptWrapper {
  return (attempt, send) => {
    const attributes = {
      [ATTR_HTTP_REQUEST_METHOD]: 'POST',
      // Without its query, which may hold a consumer's token.
      [ATTR_URL_FULL]: attempt.url.split('?', 1)[0]!,
      'webhook.endpoint.id': attempt.endpointId,
      'webhook.delivery.id': attempt.deliveryId,
      'webhook.event.id': attempt.eventId,
      'webhook.event.type': attempt.eventType,
      'webhook.attempt': attempt.attempt,
    };
    return tracer.startActiveSpan('webhook POST', { kind: SpanKind.CLIENT, attributes, root: true }, async (span) => {
      const headers: Record<string, string> = {};
      propagator.inject(trace.setSpan(context.active(), span), headers, headerSetter);
      try {
        const result = await send(headers);
        if (result.kind === 'response') {
          span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, result.status);
          if (result.status >= 400) span.setStatus({ code: SpanStatusCode.ERROR });
        } else {
          span.setAttribute(ATTR_ERROR_TYPE, result.error);
          span.setStatus({ code: SpanStatusCode.ERROR, message: result.message });
        }
        return result;
      } catch (error) {
        span.recordException(error as Error);
        span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
        throw error;
      } finally {
        span.end();
      }
    });
  };
}
