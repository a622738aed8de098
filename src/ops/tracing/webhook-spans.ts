/**
 * A client span for each webhook delivery attempt (`webhook POST`), with the endpoint, the event,
 * the attempt's number and the response status (or the transport error). It starts a trace of its
 * own (the worker runs apart from any request), and the request it makes carries a W3C `traceparent`
 * naming this span, so a receiver that traces continues the same trace.
 *
 * The receiver is named by scheme, host and port, and by the endpoint's id: many receivers take a
 * secret in the URL's path or query (instead of checking the signature), and spans go to a collector
 * that more people read than the endpoint list. The whole URL only with TRACE_WEBHOOK_URLS=true.
 */
import { context, SpanKind, SpanStatusCode, trace, type Attributes } from '@opentelemetry/api';
import {
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
  ATTR_URL_FULL,
  ATTR_URL_SCHEME,
} from '@opentelemetry/semantic-conventions';
import type { TracingConfig } from '../../config.ts';
import type { AttemptWrapper } from '../../webhooks/delivery/delivery-worker.ts';
import type { Tracing } from './tracing.ts';

const headerSetter = {
  set: (carrier: Record<string, string>, key: string, value: string) => {
    carrier[key] = value;
  },
};

/** Where the attempt goes, without the path and query (which may hold a receiver's secret), or with them when asked. */
function targetAttributes(endpointUrl: string, wholeUrl: boolean): Attributes {
  let url: URL;
  try {
    url = new URL(endpointUrl);
  } catch {
    // Not sent either (the transport refuses it): nothing to name.
    return {};
  }
  return {
    [ATTR_URL_SCHEME]: url.protocol.slice(0, -1),
    // IPv6 literals without their brackets, as `server.address` wants them.
    [ATTR_SERVER_ADDRESS]: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    [ATTR_SERVER_PORT]: url.port ? Number(url.port) : url.protocol === 'http:' ? 80 : 443,
    ...(wholeUrl ? { [ATTR_URL_FULL]: endpointUrl } : {}),
  };
}

export function webhookSpans({ tracer, propagator }: Tracing, { webhookUrls }: Pick<TracingConfig, 'webhookUrls'>): AttemptWrapper {
  return (attempt, send) => {
    const attributes = {
      [ATTR_HTTP_REQUEST_METHOD]: 'POST',
      ...targetAttributes(attempt.url, webhookUrls),
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
