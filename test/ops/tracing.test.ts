// test-suite: own-process (it sets OpenTelemetry's process-wide context manager, which would stay for the files after it)
// test-suite: once (spans are made above the driver)
/**
 * OpenTelemetry tracing (src/ops/tracing/), against a real OTLP/HTTP receiver on loopback collecting
 * the JSON the exporter sends: a request's `traceparent` is its server span's parent; the GraphQL
 * operation and the database statements it runs are in that trace; a webhook delivery carries a
 * `traceparent` naming its exported attempt span. Unconfigured, nothing is created. And the OTEL_*
 * variables are validated as the others are.
 */
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import tap, { type Test } from 'tap';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { sharedServer } from '../helpers/server.ts';
import { startReceiver, type ReceivedRequest } from '../helpers/webhook-receiver.ts';
import { eventually, registerEndpoint, sendTest, startWebhookServer } from '../webhooks/webhook-fixtures.ts';

interface AnyValue {
  stringValue?: string;
  intValue?: number | string;
}

interface ExportedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: { key: string; value: AnyValue }[];
}

/** An OTLP/HTTP trace receiver: every span of every export request, and the service names seen. */
async function startCollector(t: Test) {
  const spans: ExportedSpan[] = [];
  const services = new Set<string>();
  const paths = new Set<string>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      paths.add(req.url ?? '');
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        resourceSpans?: {
          resource?: { attributes?: ExportedSpan['attributes'] };
          scopeSpans?: { spans?: ExportedSpan[] }[];
        }[];
      };
      for (const resourceSpans of body.resourceSpans ?? []) {
        const service = resourceSpans.resource?.attributes?.find((a) => a.key === 'service.name')?.value.stringValue;
        if (service) services.add(service);
        for (const scope of resourceSpans.scopeSpans ?? []) spans.push(...(scope.spans ?? []));
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, spans, services, paths };
}

/** The variable a refused configuration names. */
function refused(env: Record<string, string>): string | undefined {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.variable;
    throw error;
  }
  return undefined;
}

function attribute(span: ExportedSpan, key: string): string | number | undefined {
  const value = span.attributes?.find((a) => a.key === key)?.value;
  if (!value) return undefined;
  return value.stringValue ?? (value.intValue === undefined ? undefined : Number(value.intValue));
}

/** The exported attempt span the delivery's `traceparent` names. */
async function attemptSpanOf(tracing: { flush(): Promise<void> }, delivery: ReceivedRequest): Promise<ExportedSpan> {
  const match = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/.exec(String(delivery.headers.traceparent ?? ''));
  return eventually(
    async () => {
      await tracing.flush();
      return collector.spans.find((s) => s.traceId === match?.[1] && s.spanId === match?.[2] && s.name === 'webhook POST');
    },
    10_000,
    'the attempt span',
  );
}

const hex = (bytes: number) => [...crypto.getRandomValues(new Uint8Array(bytes))].map((b) => b.toString(16).padStart(2, '0')).join('');

const collector = await startCollector(tap);
const server = await startWebhookServer(tap, { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_SERVICE_NAME: 'schemaforge-test' });

tap.test('a request traceparent is the parent of its server span; GraphQL and SQL spans join its trace', async (t) => {
  const restTrace = hex(16);
  const restParent = hex(8);
  const rest = await fetch(`${server.baseUrl}/api/v1/products`, {
    headers: { traceparent: `00-${restTrace}-${restParent}-01`, authorization: `Bearer ${server.admin_token}` },
  });
  t.equal(rest.status, 200);
  await rest.arrayBuffer();

  const gqlTrace = hex(16);
  const gqlParent = hex(8);
  const gql = await fetch(`${server.baseUrl}/graphql`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      traceparent: `00-${gqlTrace}-${gqlParent}-01`,
      authorization: `Bearer ${server.admin_token}`,
    },
    body: JSON.stringify({ query: 'query UserCount { users { totalElements } }' }),
  });
  t.equal(gql.status, 200);
  t.notOk(((await gql.json()) as { errors?: unknown }).errors, 'the query ran');

  await server.tracing!.flush();
  t.ok(collector.paths.has('/v1/traces'), 'exported to <endpoint>/v1/traces');
  t.ok(collector.services.has('schemaforge-test'), 'service.name is OTEL_SERVICE_NAME');

  const restServer = collector.spans.find((s) => s.traceId === restTrace && s.kind === 2);
  t.ok(restServer, 'the REST request has a server span in the caller trace');
  t.equal(restServer?.parentSpanId, restParent, 'its parent is the caller span');
  t.equal(restServer?.name, 'GET /api/v1/products', 'named by method and route template');
  t.equal(attribute(restServer!, 'http.response.status_code'), 200);
  t.equal(attribute(restServer!, 'http.route'), '/api/v1/products');

  const gqlServer = collector.spans.find((s) => s.traceId === gqlTrace && s.kind === 2);
  t.equal(gqlServer?.parentSpanId, gqlParent, 'the GraphQL request too');
  t.equal(gqlServer?.name, 'POST /graphql');
  const operation = collector.spans.find((s) => s.traceId === gqlTrace && attribute(s, 'graphql.operation.type') === 'query');
  t.ok(operation, 'a GraphQL operation span in the same trace');
  t.equal(operation?.name, 'query UserCount');
  t.equal(attribute(operation!, 'graphql.operation.name'), 'UserCount');
  t.equal(operation?.parentSpanId, gqlServer?.spanId, 'a child of the server span');
  const statements = collector.spans.filter((s) => s.traceId === gqlTrace && attribute(s, 'db.query.text') !== undefined);
  t.ok(statements.length >= 1, 'at least one database statement span in the same trace');
  for (const statement of statements) {
    t.equal(attribute(statement, 'db.system.name'), 'postgresql');
    t.equal(statement.kind, 3, 'a client span');
  }
  t.ok(
    statements.some((s) => s.parentSpanId === operation?.spanId),
    'the operation statements are its children',
  );
});

tap.test('a webhook delivery carries a traceparent naming its exported attempt span', async (t) => {
  const receiver = await startReceiver(t);
  const endpoint = await registerEndpoint(server, `${receiver.origin}/hook`);
  const eventId = await sendTest(server, endpoint.id, 'order.created');
  const [delivery] = await receiver.waitFor(1);
  const traceparent = String(delivery!.headers.traceparent ?? '');
  const match = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/.exec(traceparent);
  t.ok(match, `a sampled W3C traceparent (${traceparent})`);
  const attempt = await eventually(
    async () => {
      await server.tracing!.flush();
      return collector.spans.find((s) => s.traceId === match?.[1] && s.name === 'webhook POST');
    },
    10_000,
    'the attempt span',
  );
  t.equal(attempt.spanId, match?.[2], 'the header names the attempt span');
  t.equal(attempt.kind, 3, 'a client span');
  t.equal(attribute(attempt, 'webhook.endpoint.id'), endpoint.id);
  t.equal(attribute(attempt, 'webhook.event.id'), eventId);
  t.equal(attribute(attempt, 'webhook.event.type'), 'order.created');
  t.equal(attribute(attempt, 'webhook.attempt'), 1);
  t.equal(attribute(attempt, 'http.response.status_code'), 200);
});

tap.test('an attempt span names the receiver by scheme, host and port, never by its path', async (t) => {
  const receiver = await startReceiver(t);
  // Many receivers take a secret in the path (or the query) instead of checking the signature.
  const endpoint = await registerEndpoint(server, `${receiver.origin}/hooks/path-secret-8c41f2/in?token=query-secret-93d0`);
  await sendTest(server, endpoint.id);
  const [delivery] = await receiver.waitFor(1);
  const span = await attemptSpanOf(server.tracing!, delivery!);
  const origin = new URL(receiver.origin);
  t.equal(attribute(span, 'url.scheme'), 'https');
  t.equal(attribute(span, 'server.address'), origin.hostname);
  t.equal(attribute(span, 'server.port'), Number(origin.port));
  t.equal(attribute(span, 'webhook.endpoint.id'), endpoint.id);
  t.equal(attribute(span, 'url.full'), undefined, 'no url.full without TRACE_WEBHOOK_URLS');
  t.same(
    (span.attributes ?? []).filter((a) => /path-secret|query-secret|\/hooks/.test(a.value.stringValue ?? '')).map((a) => a.key),
    [],
    'no attribute holds the path or the query',
  );
});

tap.test('TRACE_WEBHOOK_URLS=true records the whole endpoint URL', async (t) => {
  const traced = await startWebhookServer(t, {
    OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
    OTEL_SERVICE_NAME: 'schemaforge-test-urls',
    TRACE_WEBHOOK_URLS: 'true',
  });
  const receiver = await startReceiver(t);
  const url = `${receiver.origin}/hooks/path-secret-8c41f2/in?token=query-secret-93d0`;
  const endpoint = await registerEndpoint(traced, url);
  await sendTest(traced, endpoint.id);
  const [delivery] = await receiver.waitFor(1);
  const span = await attemptSpanOf(traced.tracing!, delivery!);
  t.equal(attribute(span, 'url.full'), url, 'the operator asked for it');
  t.equal(attribute(span, 'server.address'), new URL(receiver.origin).hostname);
});

tap.test('without an OTLP endpoint there is no exporter and no span', async (t) => {
  const plain = await sharedServer();
  t.equal(plain.config.tracing, null, 'not configured');
  t.equal(plain.tracing, null, 'no provider, no exporter');
  const untraced = hex(16);
  const response = await fetch(`${plain.baseUrl}/api/v1/products`, { headers: { traceparent: `00-${untraced}-${hex(8)}-01` } });
  await response.arrayBuffer();
  await server.tracing!.flush();
  t.notOk(
    collector.spans.some((s) => s.traceId === untraced),
    'nothing of its requests reaches the receiver',
  );
});

tap.test('the OTEL_* variables are validated', async (t) => {
  t.equal(loadConfig({}).tracing, null, 'off by default');
  t.same(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318/' }).tracing, {
    url: 'http://127.0.0.1:4318/v1/traces',
    serviceName: 'schemaforge',
    sampleRatio: 1,
    webhookUrls: false,
  });
  t.equal(
    loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318/', TRACE_WEBHOOK_URLS: 'true' }).tracing?.webhookUrls,
    true,
    'TRACE_WEBHOOK_URLS opts in to whole webhook URLs',
  );
  t.equal(refused({ TRACE_WEBHOOK_URLS: 'maybe' }), 'TRACE_WEBHOOK_URLS', 'TRACE_WEBHOOK_URLS=maybe, with tracing off too');
  t.equal(
    loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:1', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://b:2/traces' }).tracing?.url,
    'https://b:2/traces',
    'the traces endpoint is used as given',
  );
  t.equal(
    loadConfig({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:4318/v1/traces', OTEL_TRACES_SAMPLER_ARG: '0.25' }).tracing
      ?.sampleRatio,
    0.25,
  );
  for (const [name, value] of [
    ['OTEL_EXPORTER_OTLP_ENDPOINT', 'not a url'],
    ['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', 'ftp://127.0.0.1/'],
  ] as const) {
    t.equal(refused({ [name]: value }), name, `${name}=${value}`);
  }
  for (const ratio of ['1.5', '-0.1', 'half']) {
    const env = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_TRACES_SAMPLER_ARG: ratio };
    t.equal(refused(env), 'OTEL_TRACES_SAMPLER_ARG', `OTEL_TRACES_SAMPLER_ARG=${ratio}`);
  }
});
