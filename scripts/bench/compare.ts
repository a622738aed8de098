/**
 * One benchmark case: several targets (a server and the request it gets), their responses checked
 * equal, each warmed up, then measured in many short rounds in a balanced random order, with the
 * ratios taken within each round. Everything measured is kept for the raw JSON.
 */
import { isDeepStrictEqual } from 'node:util';
import type { LoadGenerator, Measurement } from './load.ts';
import { rssMb, type Server } from './procs.ts';
import { balancedOrders, bootstrapMedian, median, perRoundRatios, type RatioEstimate } from './stats.ts';

export interface BenchRequest {
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface Target {
  name: string;
  server: Server;
  request: BenchRequest;
}

export interface RatioSpec {
  label: string;
  numerator: string;
  denominator: string;
  /**
   * throughput: req/s of numerator over denominator (above 1 = numerator faster);
   * cost: time per request of numerator over denominator, i.e. req/s of denominator over numerator.
   */
  kind: 'throughput' | 'cost';
  goal?: { atLeast?: number; atMost?: number };
}

export interface CaseSpec {
  id: string;
  title: string;
  targets: Target[];
  ratios: RatioSpec[];
  /**
   * 'equal': every target must answer with the same status and JSON body (the default);
   * otherwise a check of each target's answer alone (pagination: the pages differ by design).
   */
  check?: 'equal' | ((name: string, body: unknown) => void);
}

export interface Settings {
  rounds: number;
  seconds: number;
  warmupSeconds: number;
  connections: number;
}

export interface RoundRecord {
  order: string[];
  results: Record<string, Measurement & { rssMb: number | null }>;
}

export interface TargetSummary {
  name: string;
  server: string;
  request: string;
  responseBytes: number;
  rps: number;
  p50: number;
  p95: number;
  p99: number;
  rssMb: number | null;
}

export interface RatioResult extends RatioSpec {
  perRound: number[];
  estimate: RatioEstimate;
  met: boolean | null;
}

export interface CaseResult {
  id: string;
  title: string;
  settings: Settings;
  targets: TargetSummary[];
  ratios: RatioResult[];
  rounds: RoundRecord[];
}

async function fetchOnce(target: Target): Promise<{ status: number; body: unknown; bytes: number }> {
  const { method, path, headers, body } = target.request;
  const response = await fetch(`${target.server.url}${path}`, { method, headers, body });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Not JSON: compared as text.
  }
  return { status: response.status, body: parsed, bytes: Buffer.byteLength(text) };
}

function hasGraphQLErrors(body: unknown): boolean {
  return typeof body === 'object' && body !== null && 'errors' in body;
}

function describe(request: BenchRequest): string {
  const auth = request.headers?.authorization ? ' (bearer token)' : '';
  if (request.body && request.path.includes('graphql')) {
    const { query } = JSON.parse(request.body) as { query: string };
    return `${request.method} ${request.path} ${query.split('{')[0]!.trim()}${auth}`;
  }
  return `${request.method} ${request.path.length > 60 ? `${request.path.slice(0, 57)}...` : request.path}${auth}`;
}

export async function runCase(
  spec: CaseSpec,
  load: LoadGenerator,
  settings: Settings,
  random: () => number,
  log: (line: string) => void,
): Promise<CaseResult> {
  // 1. The answers, one request to each target alone.
  const answers = new Map<string, { status: number; body: unknown; bytes: number }>();
  for (const target of spec.targets) {
    const answer = await fetchOnce(target);
    if (answer.status !== 200 || hasGraphQLErrors(answer.body)) {
      throw new Error(`${spec.id} · ${target.name}: ${answer.status} ${JSON.stringify(answer.body).slice(0, 500)}`);
    }
    answers.set(target.name, answer);
  }
  const check = spec.check ?? 'equal';
  if (check === 'equal') {
    const [first, ...rest] = spec.targets;
    const reference = answers.get(first!.name)!;
    for (const target of rest) {
      if (!isDeepStrictEqual(answers.get(target.name)!.body, reference.body)) {
        throw new Error(
          `${spec.id}: ${target.name} answers differently from ${first!.name}:\n${JSON.stringify(answers.get(target.name)!.body).slice(0, 400)}\n${JSON.stringify(reference.body).slice(0, 400)}`,
        );
      }
    }
  } else {
    for (const target of spec.targets) check(target.name, answers.get(target.name)!.body);
  }

  const measure = (target: Target, seconds: number) =>
    load.measure({
      url: `${target.server.url}${target.request.path}`,
      method: target.request.method,
      headers: target.request.headers ?? {},
      body: target.request.body,
      connections: settings.connections,
      seconds,
    });

  // 2. Warm-up (JIT, compiled queries, caches, pools), in a random order.
  for (const index of balancedOrders(spec.targets.length, 1, random)[0]!) await measure(spec.targets[index]!, settings.warmupSeconds);

  // 3. The rounds.
  const rounds: RoundRecord[] = [];
  for (const order of balancedOrders(spec.targets.length, settings.rounds, random)) {
    const record: RoundRecord = { order: order.map((i) => spec.targets[i]!.name), results: {} };
    for (const index of order) {
      const target = spec.targets[index]!;
      const measurement = await measure(target, settings.seconds);
      record.results[target.name] = { ...measurement, rssMb: rssMb(target.server.pid) };
    }
    rounds.push(record);
  }

  const series = (name: string, key: 'rps' | 'p50' | 'p95' | 'p99') => rounds.map((r) => r.results[name]![key]);
  const targets: TargetSummary[] = spec.targets.map((t) => {
    const rss = rounds.map((r) => r.results[t.name]!.rssMb).filter((v): v is number => v !== null);
    return {
      name: t.name,
      server: t.server.name,
      request: describe(t.request),
      responseBytes: answers.get(t.name)!.bytes,
      rps: median(series(t.name, 'rps')),
      p50: median(series(t.name, 'p50')),
      p95: median(series(t.name, 'p95')),
      p99: median(series(t.name, 'p99')),
      rssMb: rss.length ? Math.max(...rss) : null,
    };
  });
  const ratios: RatioResult[] = spec.ratios.map((r) => {
    const num = series(r.numerator, 'rps');
    const den = series(r.denominator, 'rps');
    const perRound = r.kind === 'throughput' ? perRoundRatios(num, den) : perRoundRatios(den, num);
    const estimate = bootstrapMedian(perRound, random);
    const met = r.goal
      ? (r.goal.atLeast === undefined || estimate.median >= r.goal.atLeast) &&
        (r.goal.atMost === undefined || estimate.median <= r.goal.atMost)
      : null;
    return { ...r, perRound, estimate, met };
  });
  for (const t of targets)
    log(`  ${spec.id} · ${t.name}: ${t.rps.toFixed(0)} req/s, p50 ${t.p50.toFixed(2)} ms, p99 ${t.p99.toFixed(2)} ms`);
  for (const r of ratios)
    log(`  ${spec.id} · ${r.label}: ${r.estimate.median.toFixed(2)}× [${r.estimate.low.toFixed(2)}, ${r.estimate.high.toFixed(2)}]`);
  return { id: spec.id, title: spec.title, settings, targets, ratios, rounds };
}
