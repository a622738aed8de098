/**
 * OpenTelemetry tracing, off unless configured (Config.tracing, from the standard OTEL_* variables).
 * When it is off nothing here runs, and the SDK is not even loaded (imported when tracing starts: it
 * is about 0.6 MB of JavaScript, compiled at every start otherwise): no provider, no exporter,
 * and the seams that would make spans
 * (./http-spans.ts, ./graphql-spans.ts, ./db-spans.ts, ./webhook-spans.ts) are not installed at all,
 * so the hot paths carry no tracer, not even a no-op one.
 *
 * When it is on: one tracer provider per server or worker (not the global one, so that two servers
 * in one process, as in the tests, export separately), batching spans to the OTLP/HTTP endpoint as
 * JSON, sampling a ratio of new traces and following a caller's sampled flag, and W3C Trace Context
 * (`traceparent`) for what comes in and goes out. The active span moves along with the work through
 * the process-wide AsyncLocalStorage context manager, registered the first time tracing starts.
 */
import { context, type TextMapPropagator, type Tracer } from '@opentelemetry/api';
import type { TracingConfig } from '../../config.ts';

export interface Tracing {
  tracer: Tracer;
  propagator: TextMapPropagator;
  /** Sends the spans ended so far. */
  flush(): Promise<void>;
  /** Sends what is left and stops exporting (on shutdown). */
  close(): Promise<void>;
}

let contextManagerSet = false;

/** The active span follows async work; set once per process, and only by a process that traces. */
async function useAsyncContext(): Promise<void> {
  if (contextManagerSet) return;
  const { AsyncLocalStorageContextManager } = await import('@opentelemetry/context-async-hooks');
  if (contextManagerSet) return;
  contextManagerSet = context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
}

export async function startTracing(config: TracingConfig): Promise<Tracing> {
  const [{ W3CTraceContextPropagator }, { OTLPTraceExporter }, { resourceFromAttributes }, sdk, { ATTR_SERVICE_NAME }] = await Promise.all([
    import('@opentelemetry/core'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/sdk-trace-base'),
    import('@opentelemetry/semantic-conventions'),
  ]);
  const { BasicTracerProvider, BatchSpanProcessor, ParentBasedSampler, TraceIdRatioBasedSampler } = sdk;
  await useAsyncContext();
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
