/**
 * OpenTelemetry tracing, off unless configured (Config.tracing, from the standard OTEL_* variables).
 * When it is off nothing here runs: no provider, no exporter, and the seams that would make spans
 * (./http-spans.ts, ./graphql-spans.ts, ./db-spans.ts, ./webhook-spans.ts) are not installed at all,
 * so the hot paths carry no tracer, not even a no-op one.
 *
 * When it is on: one tracer provider per server or worker (not the global one, so that two servers
 * in one process, as in the tests, export separately), batching spans to the OTLP/HTTP endpoint as
 * JSON, sampling a ratio of new traces and following a caller's sampled flag, and W3C Trace Context
 * (`traceparent`) for what comes in and goes out. The active span moves along with the work through
 * the process-wide AsyncLocalStorage context manager, registered the first time tracing starts.
 */
import { context, type Tracer } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor, ParentBasedSampler, TraceIdRatioBasedSampler } from '@opentelemetry/sdk-trace-base';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import type { TracingConfig } from '../../config.ts';

export interface Tracing {
  tracer: Tracer;
  propagator: W3CTraceContextPropagator;
  /** Sends the spans ended so far. */
  flush(): Promise<void>;
  /** Sends what is left and stops exporting (on shutdown). */
  close(): Promise<void>;
}

let contextManagerSet = false;

/** The active span follows async work; set once per process, and only by a process that traces. */
function useAsyncContext(): void {
  if (contextManagerSet) return;
  contextManagerSet = context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
}

export function startTracing(config: TracingConfig): Tracing {
  useAsyncContext();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: config.serviceName }),
    sampler: new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(config.sampleRatio) }),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: config.url }))],
  });
  return {
    tracer: provider.getTracer('schemaforge'),
    propagator: new W3CTraceContextPropagator(),
    flush: () => provider.forceFlush(),
    close: () => provider.shutdown(),
  };
}
