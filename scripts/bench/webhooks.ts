/**
 * Webhook delivery (its targets: docs/benchmarks.md): ours (dist/src/main.js as `npm start` runs it,
 * with its in-process delivery worker) delivering to 50 HTTPS receivers on loopback, which run in
 * this harness process (the server, the receivers and the load are three processes).
 * - Throughput: 200 events fanned out to all 50 endpoints (10,000 deliveries) committed at once;
 *   deliveries per second from the first commit to the last receiver acknowledgement.
 * - Latency: events committed at a steady rate for 15 s, at 200 and at 1,000 deliveries per second;
 *   the p99 from each event's commit (its `created_at`, taken inside the committing statement) to
 *   the first attempt reaching the receiver.
 * - SQL statements per delivery: the server's `db_statements_total` (/metrics) over the throughput
 *   phase, plus the one statement per event that commits it (run here, as a business transaction
 *   would), divided by the deliveries.
 * - Server CPU per delivery: the server process's user + system time (/proc) over the burst.
 * - What PostgreSQL waited on during the burst: pg_stat_activity sampled every 20 ms.
 * On PostgreSQL, events are committed by this harness with the server's own `recordEvent`, so the
 * figures measure the queue and the worker, not the REST handlers that usually cause events. On
 * PGlite (the embedded default, which belongs to the server process) the burst's 200 events are
 * product updates through the REST API instead, 20 at a time.
 *
 * The peer (PostgreSQL only, issue 47 item 4): the same 10,000 deliveries as a bare graphile-worker
 * 0.16 queue would send them (scripts/bench/webhook-peer.ts): one job per delivery (url, the body
 * rendered by src's pure `renderEnvelope` as ours renders it, the endpoint's secret, the event id),
 * all 10,000 enqueued by one `graphile_worker.add_jobs` statement (one commit), worked by a pool of
 * WEBHOOK_CONCURRENCY jobs in its own Node process, pinned as our server is, on the same PostgreSQL
 * database in its own schema (graphile_worker), signing with src's `signatureHeader` at send time
 * and POSTing over a keep-alive agent with ours' sockets per receiver (a fifth of the concurrency).
 * Five rounds, the order alternating (ours first in odd rounds): each side gets a warm-up burst of
 * its own (20 events) and then a fresh 10,000-delivery burst, measured the same way (first commit
 * to last receiver acknowledgement); the ratio is ours/peer per round. The peer process runs only
 * for its own slot and its job table is truncated after it, so nothing of it is left in the
 * database while ours is measured (ours stays up, idle, while the peer runs).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { signToken } from '../../src/auth/jwt.ts';
import { openDatabase } from '../../src/db/database.ts';
import { recordEvent } from '../../src/webhooks/outbox.repository.ts';
import { serverCertificate, testCa } from '../../test/helpers/webhook-receiver.ts';
import { startOurs, type BenchContext, type SectionResult } from './context.ts';
import { seedPostgres } from './databases.ts';
import { JWT_SECRET, productRecord } from './fixtures.ts';
import { spawnNode, stopChild, tsx, type Server } from './procs.ts';
import { productPath, toProductResponse } from '../../src/catalog/products.v1.representation.ts';
import { renderEnvelope } from '../../src/webhooks/events/envelope.ts';
import { CURRENT_API_VERSION } from '../../src/webhooks/event-types.ts';
import { median, quantile } from './stats.ts';
import type { PeerJob } from './webhook-peer.ts';

const RECEIVERS = 50;
const BURST_EVENTS = 200;
const WARM_UP_EVENTS = 20;
/** Steady phases: deliveries per second (events per second × receivers) and each one's p99 target. */
const STEADY = [
  { deliveriesPerSecond: 200, p99Ms: 50 },
  { deliveriesPerSecond: 1000, p99Ms: 250 },
];
const STEADY_SECONDS = 15;
const TARGETS = { throughput: 2000, statements: 0.15, cpuMs: 0.3 };
const METRICS_TOKEN = 'bench-metrics-token-0123456789abcdef';
/** PGlite's burst: product updates through REST, this many at a time. */
const PGLITE_WRITERS = 20;
/** Rounds of ours against the peer (one with --quick), the order alternating. */
const PEER_ROUNDS = 5;
/** Ours' worker concurrency (the server inherits this environment) and its sockets per receiver (delivery-worker.ts). */
const CONCURRENCY = Number(process.env.WEBHOOK_CONCURRENCY ?? 50);
const SOCKETS_PER_HOST = Math.max(1, Math.ceil(CONCURRENCY / 5));

interface Arrival {
  id: string;
  receivedAt: number;
  createdAt: number;
}

interface Receivers {
  urls: string[];
  arrivals: Arrival[];
  /** TLS connections accepted so far (a reused connection is not counted again). */
  connections(): number;
  close(): void;
}

async function startReceivers(count: number): Promise<Receivers> {
  const { cert, key } = await serverCertificate(['127.0.0.1']);
  const arrivals: Arrival[] = [];
  const servers: https.Server[] = [];
  let connections = 0;
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
    server.on('secureConnection', () => connections++);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    servers.push(server);
  }
  return {
    urls: servers.map((s) => `https://127.0.0.1:${(s.address() as AddressInfo).port}/hook`),
    arrivals,
    connections: () => connections,
    close: () => servers.forEach((s) => s.close()),
  };
}

async function statementsServed(url: string): Promise<number> {
  const response = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  const text = await response.text();
  const line = text.split('\n').find((l) => l.startsWith('db_statements_total '));
  if (!line) throw new Error(`webhooks bench: /metrics answered ${response.status} without db_statements_total`);
  return Number(line.split(' ')[1]);
}

/** The process's CPU time so far (user + system), in ms, from /proc. */
function cpuMs(pid: number | undefined): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

async function waitFor(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`webhooks bench: timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** Samples what PostgreSQL's active backends wait on until stopped; the tally, most frequent first. */
function sampleWaits(url: string): { stop(): Promise<string> } {
  const client = new pg.Client({ connectionString: url });
  const tally = new Map<string, number>();
  let samples = 0;
  let running = true;
  const loop = (async () => {
    await client.connect();
    while (running) {
      const { rows } = await client.query<{ wait: string }>(
        `select coalesce(wait_event_type || ':' || wait_event, 'CPU') as wait from pg_stat_activity
         where state = 'active' and pid <> pg_backend_pid() and backend_type = 'client backend'`,
      );
      samples++;
      for (const { wait } of rows) tally.set(wait, (tally.get(wait) ?? 0) + 1);
      await new Promise((r) => setTimeout(r, 20));
    }
    await client.end();
  })();
  return {
    async stop() {
      running = false;
      await loop;
      const seen = [...tally].sort((a, b) => b[1] - a[1]);
      const busy = seen.reduce((n, [, c]) => n + c, 0);
      return `${samples} samples, ${(busy / Math.max(samples, 1)).toFixed(2)} active backends on average: ${
        seen.map(([wait, n]) => `${wait} ${((n / Math.max(samples, 1)) * 100).toFixed(0)} %`).join(', ') || 'none'
      }`;
    },
  };
}

const verdict = (ok: boolean, gap: string) => (ok ? 'met' : `**missed** (${gap})`);

async function registerReceivers(server: Server, urls: string[]): Promise<void> {
  const token = await signToken(JWT_SECRET, { sub: 'bench-admin', roles: ['ADMIN'] });
  for (const hook of urls) {
    const response = await fetch(`${server.url}/api/webhooks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: hook, events: ['product.updated'] }),
    });
    if (response.status !== 201) throw new Error(`webhooks bench: registration answered ${response.status}: ${await response.text()}`);
  }
}

const SERVER_ENV = (caFile: string) => ({
  WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
  NODE_EXTRA_CA_CERTS: caFile,
  LOG_LEVEL: 'error',
  METRICS_TOKEN,
});

interface Burst {
  throughput: number;
  statements: number;
  cpuPerDelivery: number;
  /** This process's (the receivers' and the committer's) CPU per delivery, ms. */
  harnessCpuPerDelivery: number;
  /** The machine's idle share over the burst (all cores). */
  idle: number;
  /** TLS connections the receivers accepted during the burst. */
  connections: number;
  duplicates: number;
}

/** Idle and total jiffies of the whole machine so far (/proc/stat). */
function machineTimes(): { idle: number; total: number } {
  const cpu = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  return { idle: cpu[3]! + cpu[4]!, total: cpu.reduce((a, b) => a + b, 0) };
}

/** Commits the burst with `commitAll`, waits for every delivery and measures it. */
async function burst(server: Server, receivers: Receivers, commitAll: () => Promise<unknown>, statementsOutside: number): Promise<Burst> {
  const statementsBefore = await statementsServed(server.url);
  const cpuBefore = cpuMs(server.pid);
  const harnessBefore = process.cpuUsage();
  const machineBefore = machineTimes();
  const connectionsBefore = receivers.connections();
  const started = Date.now();
  await commitAll();
  const count = BURST_EVENTS * RECEIVERS;
  await waitFor(() => receivers.arrivals.length >= count, 180_000, 'the burst');
  const seconds = (Date.now() - started) / 1000;
  const cpu = cpuMs(server.pid) - cpuBefore;
  const harness = process.cpuUsage(harnessBefore);
  const machine = machineTimes();
  const idle = (machine.idle - machineBefore.idle) / (machine.total - machineBefore.total);
  // Past the last arrival: the successes and counters it leaves are written (and counted) too.
  await new Promise((r) => setTimeout(r, 1500));
  const statements = ((await statementsServed(server.url)) - statementsBefore - 1 + statementsOutside) / count;
  const duplicates = count - new Set(receivers.arrivals.map((a) => a.id)).size;
  receivers.arrivals.length = 0;
  return {
    throughput: count / seconds,
    statements,
    cpuPerDelivery: cpu / count,
    harnessCpuPerDelivery: (harness.user + harness.system) / 1000 / count,
    idle,
    connections: receivers.connections() - connectionsBefore,
    duplicates,
  };
}

interface PeerBurst {
  throughput: number;
  /** The one add_jobs statement (all 10,000 jobs, one commit), ms: inside the measured time. */
  enqueueMs: number;
  /** The peer process's CPU per delivery, ms. */
  cpuPerDelivery: number;
  idle: number;
  connections: number;
  duplicates: number;
}

interface Peer {
  pid: number | undefined;
  stop(): Promise<void>;
}

/** The graphile-worker peer (scripts/bench/webhook-peer.ts) in its own process, pinned as our server is; resolves once it listens. */
async function startGraphilePeer(url: string, caFile: string, cpu: string | null): Promise<Peer> {
  const child = spawnNode(tsx('scripts/bench/webhook-peer.ts'), {
    cpu,
    ipc: true,
    env: {
      ...process.env,
      NODE_ENV: 'production',
      DATABASE_URL: url,
      NODE_EXTRA_CA_CERTS: caFile,
      PEER_CONCURRENCY: String(CONCURRENCY),
      PEER_SOCKETS_PER_HOST: String(SOCKETS_PER_HOST),
    },
  });
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('webhooks bench: the graphile-worker peer was not ready within 60 s')), 60_000);
      child.once('message', () => {
        clearTimeout(timer);
        resolve();
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`webhooks bench: the graphile-worker peer exited (code ${code}) before it was ready`));
      });
    });
  } catch (error) {
    await stopChild(child);
    throw error;
  }
  return { pid: child.pid, stop: () => stopChild(child) };
}

/**
 * The peer's jobs for `events` events fanned out to every receiver: the body ours sends for such an
 * event (the same envelope, rendered by the same function with ours' default BASE_URL), one job per
 * delivery, event by event as ours queues them.
 */
function peerJobs(events: number, baseUrl: string, receivers: Receivers, secrets: string[]): PeerJob[] {
  const jobs: PeerJob[] = [];
  for (let e = 0; e < events; e++) {
    const product = productRecord((e % 1000) + 1);
    const eventId = randomUUID();
    const body = renderEnvelope(
      {
        id: eventId,
        type: 'product.updated',
        resource_type: 'product',
        resource_id: `${product.id}-${e}`,
        sequence: 1,
        object: toProductResponse(product),
        previous_attributes: { price: 1.99 },
        resource_path: productPath(product.id),
        tenant_id: null,
        created_at: new Date(),
      },
      { api_version: CURRENT_API_VERSION, payload: 'fat' },
      baseUrl,
    );
    receivers.urls.forEach((url, i) => jobs.push({ url, body, secret: secrets[i]!, eventId }));
  }
  return jobs;
}

/** All the jobs in one statement, one commit: graphile-worker's batch API (add_jobs) as SQL. */
async function enqueue(client: pg.Client, jobs: PeerJob[]): Promise<void> {
  await client.query(
    `select count(*) from graphile_worker.add_jobs(array(
       select s from json_populate_recordset(null::graphile_worker.job_spec, $1::json) s))`,
    [JSON.stringify(jobs.map((payload) => ({ identifier: 'deliver', payload })))],
  );
}

async function peerJobsLeft(client: pg.Client): Promise<number> {
  const { rows } = await client.query<{ n: string }>('select count(*) as n from graphile_worker._private_jobs');
  return Number(rows[0]!.n);
}

/** One peer slot: start the process, warm it up, measure a fresh burst, stop it, empty its tables. */
async function peerRound(
  url: string,
  caFile: string,
  cpu: string | null,
  client: pg.Client,
  receivers: Receivers,
  make: (events: number) => PeerJob[],
): Promise<{ result: PeerBurst; waited: string }> {
  const peer = await startGraphilePeer(url, caFile, cpu);
  try {
    const drained = async (what: string) => {
      const deadline = Date.now() + 30_000;
      while ((await peerJobsLeft(client)) > 0) {
        if (Date.now() > deadline) throw new Error(`webhooks bench: the peer's jobs were not all completed after ${what}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    };
    await enqueue(client, make(WARM_UP_EVENTS));
    await waitFor(() => receivers.arrivals.length >= WARM_UP_EVENTS * RECEIVERS, 30_000, "the peer's warm-up");
    await drained('the warm-up');
    await new Promise((r) => setTimeout(r, 1500));
    receivers.arrivals.length = 0;

    const jobs = make(BURST_EVENTS);
    const waits = sampleWaits(url);
    const cpuBefore = cpuMs(peer.pid);
    const machineBefore = machineTimes();
    const connectionsBefore = receivers.connections();
    const started = Date.now();
    await enqueue(client, jobs);
    const enqueueMs = Date.now() - started;
    await waitFor(() => receivers.arrivals.length >= jobs.length, 180_000, "the peer's burst");
    const seconds = (Date.now() - started) / 1000;
    const cpu = cpuMs(peer.pid) - cpuBefore;
    const machine = machineTimes();
    const waited = await waits.stop();
    const duplicates = jobs.length - new Set(receivers.arrivals.map((a) => a.id)).size;
    receivers.arrivals.length = 0;
    await drained('the burst');
    return {
      result: {
        throughput: jobs.length / seconds,
        enqueueMs,
        cpuPerDelivery: cpu / jobs.length,
        idle: (machine.idle - machineBefore.idle) / (machine.total - machineBefore.total),
        connections: receivers.connections() - connectionsBefore,
        duplicates,
      },
      waited,
    };
  } finally {
    await peer.stop();
    // Nothing of the peer's stays in the database ours is measured on: its jobs and queues go.
    await client.query('truncate graphile_worker._private_jobs, graphile_worker._private_job_queues');
  }
}

/** The index of the median of `values` (the lower middle for an even count). */
function medianIndex(values: number[]): number {
  const order = values.map((v, i) => [v, i] as const).sort((a, b) => a[0] - b[0]);
  return order[(order.length - 1) >> 1]![1];
}

async function onPostgres(ctx: BenchContext, caFile: string, receivers: Receivers): Promise<string[]> {
  const url = await seedPostgres(await ctx.postgres(), 'bench_webhooks', async () => {});
  const server = await startOurs(ctx, { kind: 'postgres', url }, 'ours-memory', SERVER_ENV(caFile));
  const database = await openDatabase({ kind: 'postgres', url });
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await registerReceivers(server, receivers.urls);
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

    // Warm-up: a small burst of its own, so the worker holds the connections to the receivers that a
    // burst uses (as a running worker does: they are kept alive) and the server's statements are prepared.
    const warmUp = async () => {
      await Promise.all(Array.from({ length: WARM_UP_EVENTS }, commitEvent));
      await waitFor(() => receivers.arrivals.length >= WARM_UP_EVENTS * RECEIVERS, 30_000, 'the warm-up');
      await new Promise((r) => setTimeout(r, 1500));
      receivers.arrivals.length = 0;
    };

    // The peer: the same bodies (ours' default BASE_URL), each receiver with a secret of ours' format.
    const baseUrl = `http://localhost:${new URL(server.url).port}`;
    const secrets = receivers.urls.map(() => `whsec_${randomBytes(32).toString('base64url')}`);
    const make = (events: number) => peerJobs(events, baseUrl, receivers, secrets);

    const rounds = ctx.quick ? 1 : PEER_ROUNDS;
    const ours: { result: Burst; waited: string }[] = [];
    const peer: { result: PeerBurst; waited: string }[] = [];
    const orders: string[] = [];
    for (let round = 0; round < rounds; round++) {
      const oursFirst = round % 2 === 0;
      orders.push(oursFirst ? 'ours, peer' : 'peer, ours');
      for (const side of oursFirst ? ['ours', 'peer'] : ['peer', 'ours']) {
        ctx.log(`webhooks/throughput (PostgreSQL) round ${round + 1}/${rounds}: ${side}`);
        if (side === 'ours') {
          await warmUp();
          const waits = sampleWaits(url);
          const result = await burst(server, receivers, () => Promise.all(Array.from({ length: BURST_EVENTS }, commitEvent)), BURST_EVENTS);
          ours.push({ result, waited: await waits.stop() });
        } else {
          peer.push(await peerRound(url, caFile, ctx.pinning.server, client, receivers, make));
        }
      }
    }

    await warmUp();
    const steady: string[] = [];
    for (const phase of STEADY) {
      ctx.log(`webhooks/latency at ${phase.deliveriesPerSecond}/s`);
      const perSecond = phase.deliveriesPerSecond / RECEIVERS;
      const events = perSecond * STEADY_SECONDS;
      const t0 = Date.now();
      for (let i = 0; i < events; i++) {
        const due = t0 + (i * 1000) / perSecond;
        await new Promise((r) => setTimeout(r, Math.max(due - Date.now(), 0)));
        await commitEvent();
      }
      await waitFor(() => receivers.arrivals.length >= events * RECEIVERS, 60_000, 'the steady phase');
      const latencies = receivers.arrivals.map((a) => a.receivedAt - a.createdAt).sort((a, b) => a - b);
      receivers.arrivals.length = 0;
      const p50 = quantile(latencies, 0.5);
      const p99 = quantile(latencies, 0.99);
      steady.push(
        `| commit → first attempt at ${phase.deliveriesPerSecond} deliveries/s, p50 ms | ${p50.toFixed(1)} | – | – |`,
        `| commit → first attempt at ${phase.deliveriesPerSecond} deliveries/s, p99 ms (${latencies.length} deliveries over ${STEADY_SECONDS} s) | ${p99.toFixed(1)} | ≤ ${phase.p99Ms} | ${verdict(p99 <= phase.p99Ms, `${(p99 - phase.p99Ms).toFixed(0)} ms over`)} |`,
      );
      await new Promise((r) => setTimeout(r, 1500));
    }

    const ratios = ours.map((o, i) => o.result.throughput / peer[i]!.result.throughput);
    const held = ratios.filter((r) => r >= 1).length;
    const middle = medianIndex(ours.map((o) => o.result.throughput));
    const peerMiddle = medianIndex(peer.map((p) => p.result.throughput));
    const worst = Math.min(...ratios);
    const goal =
      rounds < PEER_ROUNDS
        ? `not judged: a \`--quick\` run has ${rounds} round, the goal is ≥ 1.0× in each of ${PEER_ROUNDS}`
        : held === rounds
          ? `**met**: ≥ 1.0× in each of the ${rounds} rounds`
          : `**missed**: ≥ 1.0× in ${held} of ${rounds} rounds; the lowest round ${worst.toFixed(2)}× (${((1 - worst) * 100).toFixed(0)} % short), the median ${median(ratios).toFixed(2)}× (${(Math.max(0, 1 - median(ratios)) * 100).toFixed(0)} % short)`;
    return [
      `PostgreSQL ${(await ctx.postgres()).version}; events committed by the harness with the server's \`recordEvent\` (one statement: the event and its fan-out to the 50 endpoints), so these figures are the queue's and the worker's.`,
      `**Against a bare graphile-worker queue** (issue 47 item 4; scripts/bench/webhook-peer.ts): the same ${(BURST_EVENTS * RECEIVERS).toLocaleString('en')} signed POSTs as graphile-worker jobs (one \`add_jobs\` statement), concurrency ${CONCURRENCY}, maxPoolSize ${CONCURRENCY + 1}, ${SOCKETS_PER_HOST} keep-alive sockets per receiver, in its own process pinned as ours is; ${rounds} round(s), the order alternating, each side warmed up and then given a fresh burst. Deliveries per second from the first commit to the last receiver acknowledgement:`,
      [
        '| round | order | ours deliveries/s | peer deliveries/s | ours / peer | ≥ 1.0× | ours CPU ms/delivery | peer CPU ms/delivery | peer add_jobs ms | TLS connections ours / peer |',
        '|---:|---|---:|---:|---:|---|---:|---:|---:|---:|',
        ...ratios.map((r, i) => {
          const o = ours[i]!.result;
          const p = peer[i]!.result;
          return `| ${i + 1} | ${orders[i]} | ${o.throughput.toFixed(0)} | ${p.throughput.toFixed(0)} | ${r.toFixed(2)}× | ${r >= 1 ? 'yes' : '**no**'} | ${o.cpuPerDelivery.toFixed(3)} | ${p.cpuPerDelivery.toFixed(3)} | ${p.enqueueMs} | ${o.connections} / ${p.connections} |`;
        }),
      ].join('\n'),
      `Median ratio ours / peer: **${median(ratios).toFixed(2)}×**. Goal (≥ 1.0× in each of ${PEER_ROUNDS} runs): ${goal}. Duplicate deliveries: ours ${ours.reduce((a, o) => a + o.result.duplicates, 0)}, peer ${peer.reduce((a, p) => a + p.result.duplicates, 0)}.`,
      `Ours in its median round (round ${middle + 1}) and the latency phases after the rounds:`,
      ['| figure | value | target | verdict |', '|---|---:|---:|---|', ...burstRows(ours[middle]!.result), ...steady].join('\n'),
      `What PostgreSQL's client backends were doing during ours' median burst (pg_stat_activity every 20 ms; \`CPU\` is active with no wait event): ${ours[middle]!.waited}. During the peer's median burst (round ${peerMiddle + 1}, machine idle ${(peer[peerMiddle]!.result.idle * 100).toFixed(0)} %): ${peer[peerMiddle]!.waited}.`,
    ];
  } finally {
    await client.end();
    await database.close();
    await server.stop();
  }
}

function burstRows(b: Burst): string[] {
  const count = (BURST_EVENTS * RECEIVERS).toLocaleString('en');
  return [
    `| sustained deliveries/s (${count} deliveries, ${BURST_EVENTS} events × ${RECEIVERS} endpoints) | ${b.throughput.toFixed(0)} | ≥ ${TARGETS.throughput} | ${verdict(b.throughput >= TARGETS.throughput, `${(100 - (b.throughput / TARGETS.throughput) * 100).toFixed(0)} % short`)} |`,
    `| SQL statements per delivery (server's db_statements_total + 1 per event) | ${b.statements.toFixed(3)} | ≤ ${TARGETS.statements} | ${verdict(b.statements <= TARGETS.statements, `${(b.statements - TARGETS.statements).toFixed(3)} over`)} |`,
    `| server CPU per delivery, ms (user + system over the burst) | ${b.cpuPerDelivery.toFixed(3)} | ≤ ${TARGETS.cpuMs} | ${verdict(b.cpuPerDelivery <= TARGETS.cpuMs, `${(b.cpuPerDelivery - TARGETS.cpuMs).toFixed(3)} ms over`)} |`,
    `| harness CPU per delivery, ms (the 50 receivers and the committer, one process) | ${b.harnessCpuPerDelivery.toFixed(3)} | – | – |`,
    `| TLS connections opened to the receivers during the burst | ${b.connections} | – | – |`,
    `| machine idle over the burst (${os.cpus().length} cores) | ${(b.idle * 100).toFixed(0)} % | – | – |`,
    `| duplicate deliveries in the burst | ${b.duplicates} | – | – |`,
  ];
}

async function onPglite(ctx: BenchContext, caFile: string, receivers: Receivers): Promise<string[]> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'schemaforge-bench-webhooks-'));
  const server = await startOurs(ctx, { kind: 'pglite', dataDir: () => dataDir }, 'ours-memory', SERVER_ENV(caFile));
  try {
    await registerReceivers(server, receivers.urls);
    const token = await signToken(JWT_SECRET, { sub: 'bench-admin', roles: ['ADMIN'] });
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const call = async (method: string, url: string, body: unknown, status: number) => {
      const response = await fetch(url, { method, headers, body: JSON.stringify(body) });
      if (response.status !== status)
        throw new Error(`webhooks bench: ${method} ${url} answered ${response.status}: ${await response.text()}`);
      return (await response.json()) as { id: string };
    };
    const ids: string[] = [];
    for (let i = 0; i < BURST_EVENTS + WARM_UP_EVENTS; i++) {
      const product = await call(
        'POST',
        `${server.url}/api/v1/products`,
        { name: `Bench ${i}`, price: 10, sku: `BENCH-${String(i).padStart(6, '0')}`, category: 'OTHER', stockQuantity: 5 },
        201,
      );
      ids.push(product.id);
    }
    let price = 11;
    const update = (id: string) => call('PATCH', `${server.url}/api/v1/products/${id}`, { price: price++ }, 200);
    await Promise.all(ids.slice(0, WARM_UP_EVENTS).map(update));
    await waitFor(() => receivers.arrivals.length >= WARM_UP_EVENTS * RECEIVERS, 30_000, 'the warm-up');
    await new Promise((r) => setTimeout(r, 1500));
    receivers.arrivals.length = 0;

    ctx.log('webhooks/throughput (PGlite)');
    const queue = ids.slice(WARM_UP_EVENTS);
    const writers = async () => {
      for (let id = queue.shift(); id; id = queue.shift()) await update(id);
    };
    // The REST requests are statements of the server's too: counted, and nothing to add.
    const result = await burst(server, receivers, () => Promise.all(Array.from({ length: PGLITE_WRITERS }, writers)), 0);
    return [
      `PGlite (file, the embedded default): the burst's ${BURST_EVENTS} events are \`PATCH /api/v1/products/{id}\` requests, ${PGLITE_WRITERS} at a time, so the server also serves them: its statements and CPU per delivery include theirs (about one statement per delivery's fiftieth).`,
      ['| figure | value | target | verdict |', '|---|---:|---:|---|', ...burstRows(result)].join('\n'),
    ];
  } finally {
    await server.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

export async function run(ctx: BenchContext): Promise<SectionResult> {
  if (!ctx.runs('postgres') && !ctx.runs('pglite'))
    return { name: 'Webhook delivery', notes: ['Not run: the figures are over a database (`--db postgres,pglite`).'], cases: [] };
  const caDir = fs.mkdtempSync(path.join(os.tmpdir(), 'schemaforge-bench-ca-'));
  const caFile = path.join(caDir, 'ca.pem');
  fs.writeFileSync(caFile, (await testCa()).cert);
  const receivers = await startReceivers(RECEIVERS);
  try {
    const notes = [
      `${RECEIVERS} HTTPS receivers on loopback (in the harness process, answering 204 at once), each an endpoint subscribed to \`product.updated\`; ours with its in-process worker and the defaults (WEBHOOK_CONCURRENCY 50, WEBHOOK_RATE_PER_ENDPOINT 100 per second, WEBHOOK_FLUSH_MS 20). On PostgreSQL the burst's throughput is also a ratio to a bare graphile-worker queue delivering the same requests, interleaved round by round; every other figure is ours alone.`,
    ];
    if (ctx.runs('postgres')) notes.push(...(await onPostgres(ctx, caFile, receivers)));
    if (ctx.runs('pglite')) notes.push(...(await onPglite(ctx, caFile, receivers)));
    return { name: 'Webhook delivery', notes, cases: [] };
  } finally {
    receivers.close();
    fs.rmSync(caDir, { recursive: true, force: true });
  }
}
