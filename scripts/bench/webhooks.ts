/**
 * Webhook delivery over PostgreSQL (its targets: docs/benchmarks.md): ours (dist/src/main.js as `npm start` runs
 * it, with its in-process delivery worker) delivering to 50 HTTPS receivers on loopback, which run
 * in this harness process (the server, the receivers and the load are three processes).
 * - Throughput: 200 events fanned out to all 50 endpoints (10,000 deliveries) committed at once;
 *   deliveries per second from the first commit to the last receiver acknowledgement.
 * - Latency: events committed at a steady 4 per second (200 deliveries per second) for 15 s; the p99
 *   from each event's commit (its `created_at`, taken inside the committing statement) to the
 *   first attempt reaching the receiver.
 * - SQL statements per delivery: the server's `db_statements_total` (/metrics) over the throughput
 *   phase, plus the one statement per event that commits it (run here, as a business transaction
 *   would), divided by the deliveries.
 * Events are committed by this harness with the server's own `recordEvent`, so the figures measure
 * the queue and the worker, not the REST handlers that usually cause events.
 */
import { once } from 'node:events';
import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { signToken } from '../../src/auth/jwt.ts';
import { openDatabase } from '../../src/db/database.ts';
import { recordEvent } from '../../src/webhooks/outbox.repository.ts';
import { serverCertificate, testCa } from '../../test/helpers/webhook-receiver.ts';
import { startOurs, type BenchContext, type SectionResult } from './context.ts';
import { seedPostgres } from './databases.ts';
import { JWT_SECRET, productRecord } from './fixtures.ts';
import { productPath, toProductResponse } from '../../src/catalog/products.v1.representation.ts';
import { quantile } from './stats.ts';

const RECEIVERS = 50;
const BURST_EVENTS = 200;
const STEADY_EVENTS_PER_SECOND = 4;
const STEADY_SECONDS = 15;
const TARGETS = { throughput: 1000, p99Ms: 250, statements: 6 };

interface Arrival {
  id: string;
  receivedAt: number;
  createdAt: number;
}

async function startReceivers(count: number): Promise<{ urls: string[]; arrivals: Arrival[]; close(): void }> {
  const { cert, key } = await serverCertificate(['127.0.0.1']);
  const arrivals: Arrival[] = [];
  const servers: https.Server[] = [];
  for (let i = 0; i < count; i++) {
    const server = https.createServer({ cert, key, keepAliveTimeout: 60_000 }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const receivedAt = Date.now();
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: string; created_at: string };
        arrivals.push({ id: `${body.id}/${i}`, receivedAt, createdAt: Date.parse(body.created_at) });
        res.writeHead(204).end();
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    servers.push(server);
  }
  return {
    urls: servers.map((s) => `https://127.0.0.1:${(s.address() as AddressInfo).port}/hook`),
    arrivals,
    close: () => servers.forEach((s) => s.close()),
  };
}

async function statementsServed(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith('db_statements_total '));
  return Number(line?.split(' ')[1] ?? NaN);
}

async function waitFor(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`webhooks bench: timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export async function run(ctx: BenchContext): Promise<SectionResult> {
  if (!ctx.runs('postgres'))
    return { name: 'Webhook delivery', notes: ['Not run: the targets are over PostgreSQL (`--db postgres`).'], cases: [] };
  const url = await seedPostgres(await ctx.postgres(), 'bench_webhooks', async () => {});
  const caDir = fs.mkdtempSync(path.join(os.tmpdir(), 'schemaforge-bench-ca-'));
  const caFile = path.join(caDir, 'ca.pem');
  fs.writeFileSync(caFile, (await testCa()).cert);
  const receivers = await startReceivers(RECEIVERS);
  const server = await startOurs(ctx, { kind: 'postgres', url }, 'ours-memory', {
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    NODE_EXTRA_CA_CERTS: caFile,
    LOG_LEVEL: 'error',
  });
  const database = await openDatabase({ kind: 'postgres', url });
  try {
    const token = await signToken(JWT_SECRET, { sub: 'bench-admin', roles: ['ADMIN'] });
    for (const hook of receivers.urls) {
      const response = await fetch(`${server.url}/api/webhooks`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url: hook, events: ['product.updated'] }),
      });
      if (response.status !== 201) throw new Error(`webhooks bench: registration answered ${response.status}: ${await response.text()}`);
    }
    let n = 0;
    const commitEvent = () => {
      const product = productRecord((n++ % 1000) + 1);
      return recordEvent(database.db, {
        type: 'product.updated',
        resourceType: 'product',
        resourceId: `${product.id}-${n}`,
        sequence: 1,
        object: toProductResponse(product),
        resourcePath: productPath(product.id),
        previousAttributes: { price: 1.99 },
      });
    };

    // Warm-up: connections to every receiver, the worker's statements prepared by the server.
    for (let i = 0; i < 4; i++) await commitEvent();
    await waitFor(() => receivers.arrivals.length >= 4 * RECEIVERS, 30_000, 'the warm-up');
    receivers.arrivals.length = 0;

    ctx.log('webhooks/throughput');
    const statementsBefore = await statementsServed(server.url);
    const started = Date.now();
    await Promise.all(Array.from({ length: BURST_EVENTS }, commitEvent));
    const burst = BURST_EVENTS * RECEIVERS;
    await waitFor(() => receivers.arrivals.length >= burst, 120_000, 'the burst');
    const seconds = (Date.now() - started) / 1000;
    const throughput = burst / seconds;
    await new Promise((r) => setTimeout(r, 200));
    const statements = ((await statementsServed(server.url)) - statementsBefore - 1 + BURST_EVENTS) / burst;
    const duplicates = burst - new Set(receivers.arrivals.map((a) => a.id)).size;
    receivers.arrivals.length = 0;

    ctx.log('webhooks/latency');
    const steady = STEADY_EVENTS_PER_SECOND * STEADY_SECONDS;
    const t0 = Date.now();
    for (let i = 0; i < steady; i++) {
      const due = t0 + (i * 1000) / STEADY_EVENTS_PER_SECOND;
      await new Promise((r) => setTimeout(r, Math.max(due - Date.now(), 0)));
      await commitEvent();
    }
    await waitFor(() => receivers.arrivals.length >= steady * RECEIVERS, 60_000, 'the steady phase');
    const latencies = receivers.arrivals.map((a) => a.receivedAt - a.createdAt).sort((a, b) => a - b);
    const p50 = quantile(latencies, 0.5);
    const p99 = quantile(latencies, 0.99);
    const verdict = (ok: boolean, gap: string) => (ok ? 'met' : `**missed** (${gap})`);
    return {
      name: 'Webhook delivery',
      notes: [
        `${RECEIVERS} HTTPS receivers on loopback (in the harness process, answering 204 at once), each an endpoint subscribed to \`product.updated\`; ours with its in-process worker (WEBHOOK_CONCURRENCY 50, WEBHOOK_RATE_PER_ENDPOINT 100 per second: the defaults) over PostgreSQL ${(await ctx.postgres()).version}. Events are committed by the harness with the server's \`recordEvent\` (one statement: the event and its fan-out to the 50 endpoints), so these figures are the queue's and the worker's. Every figure is one run, not a ratio: there is no peer to interleave with.`,
        [
          '| figure | value | target | verdict |',
          '|---|---:|---:|---|',
          `| sustained deliveries/s (${burst.toLocaleString('en')} deliveries, ${BURST_EVENTS} events × ${RECEIVERS} endpoints) | ${throughput.toFixed(0)} | ≥ ${TARGETS.throughput} | ${verdict(throughput >= TARGETS.throughput, `${(100 - (throughput / TARGETS.throughput) * 100).toFixed(0)} % short`)} |`,
          `| commit → first attempt at ${STEADY_EVENTS_PER_SECOND * RECEIVERS} deliveries/s, p50 ms | ${p50.toFixed(1)} | – | – |`,
          `| commit → first attempt at ${STEADY_EVENTS_PER_SECOND * RECEIVERS} deliveries/s, p99 ms (${latencies.length} deliveries over ${STEADY_SECONDS} s) | ${p99.toFixed(1)} | ≤ ${TARGETS.p99Ms} | ${verdict(p99 <= TARGETS.p99Ms, `${(p99 - TARGETS.p99Ms).toFixed(0)} ms over`)} |`,
          `| SQL statements per delivery (server's db_statements_total + 1 per event) | ${statements.toFixed(2)} | ≤ ${TARGETS.statements} | ${verdict(statements <= TARGETS.statements, `${(statements - TARGETS.statements).toFixed(2)} over`)} |`,
          `| duplicate deliveries in the burst | ${duplicates} | – | – |`,
        ].join('\n'),
      ],
      cases: [],
    };
  } finally {
    await database.close();
    await server.stop();
    receivers.close();
    fs.rmSync(caDir, { recursive: true, force: true });
  }
}
