/**
 * Sends fuzz requests to a running server, a few at a time, and judges every answer: never a 5xx, never
 * more than 10 s, and always what the documents promise (a documented status whose body matches the
 * operation's schema; Problem Details on REST, SCIM errors under /scim/v2, GraphQL errors with a
 * documented `errorType`). Requests go over node:http, not fetch, so a path is sent exactly as written
 * (fetch would resolve `%2e%2e`) and any method may carry a body.
 */
import http from 'node:http';
import fc from 'fast-check';
import type { GraphQLSchema } from 'graphql';
import { ContractRegistry } from '../../test/helpers/contract.ts';
import { graphqlRequests } from './graphql-requests.ts';
import { restRequests, type Caller, type FuzzRequest, type IdPool } from './rest-requests.ts';
import { scimRequests } from './scim-requests.ts';

type Json = Record<string, any>;

export interface FuzzTarget {
  baseUrl: string;
  /** The credential each caller sends (`Authorization: Bearer …`); anonymous sends none. */
  credentials: Record<Exclude<Caller, 'anonymous'>, string>;
  docs: Record<string, Json>;
  schema: GraphQLSchema;
  ids: IdPool;
}

interface FuzzOptions {
  requests: number;
  seed: number;
  concurrency?: number;
  /** Stop waiting for an answer after this long and count a hang. */
  timeoutMs?: number;
}

interface FuzzFailure {
  request: FuzzRequest;
  status: number | 'timeout' | 'error';
  reason: string;
  body: string;
}

interface FuzzResult {
  sent: number;
  byStatus: Record<string, number>;
  byKind: Record<string, number>;
  serverErrors: number;
  violations: number;
  hangs: number;
  failures: FuzzFailure[];
  elapsedMs: number;
}

const ERROR_TYPES = new Set(['NOT_FOUND', 'FORBIDDEN', 'UNAUTHORIZED', 'BAD_REQUEST', 'TOO_MANY_REQUESTS']);
const SCIM_ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';

/** The requests a seed stands for: the same seed and count give the same requests. */
function fuzzRequests(target: Pick<FuzzTarget, 'docs' | 'schema' | 'ids'>, options: Pick<FuzzOptions, 'requests' | 'seed'>): FuzzRequest[] {
  const arbitrary = fc.oneof(
    { weight: 6, arbitrary: restRequests(target.docs, target.ids) },
    { weight: 2, arbitrary: graphqlRequests(target.schema, target.ids) },
    { weight: 1, arbitrary: scimRequests(target.ids) },
  );
  return fc.sample(arbitrary, { seed: options.seed, numRuns: options.requests });
}

export async function runFuzz(target: FuzzTarget, options: FuzzOptions): Promise<FuzzResult> {
  const registry = new ContractRegistry(target.docs, false);
  const requests = fuzzRequests(target, options);
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.concurrency ?? 8 });
  const result: FuzzResult = { sent: 0, byStatus: {}, byKind: {}, serverErrors: 0, violations: 0, hangs: 0, failures: [], elapsedMs: 0 };
  const started = performance.now();
  let next = 0;
  const worker = async () => {
    while (next < requests.length) {
      const request = requests[next++]!;
      const answer = await send(target, request, agent, options.timeoutMs ?? 10_000);
      result.sent++;
      result.byKind[request.kind] = (result.byKind[request.kind] ?? 0) + 1;
      result.byStatus[String(answer.status)] = (result.byStatus[String(answer.status)] ?? 0) + 1;
      const reason = answer.status === 'timeout' || answer.status === 'error' ? answer.reason : judge(registry, request, answer);
      if (!reason) continue;
      if (answer.status === 'timeout') result.hangs++;
      else if (typeof answer.status === 'number' && answer.status >= 500) result.serverErrors++;
      else result.violations++;
      result.failures.push({ request, status: answer.status, reason, body: answer.text.slice(0, 500) });
    }
  };
  await Promise.all(Array.from({ length: options.concurrency ?? 8 }, worker));
  agent.destroy();
  result.elapsedMs = performance.now() - started;
  return result;
}

interface Answer {
  status: number | 'timeout' | 'error';
  contentType: string;
  text: string;
  reason: string;
}

function send(target: FuzzTarget, request: FuzzRequest, agent: http.Agent, timeoutMs: number): Promise<Answer> {
  const url = new URL(target.baseUrl);
  const headers: Record<string, string | number> = { ...request.headers };
  if (request.caller !== 'anonymous' && !('authorization' in headers))
    headers.authorization = `Bearer ${target.credentials[request.caller]}`;
  if (request.body !== undefined) headers['content-length'] = Buffer.byteLength(request.body);
  return new Promise((resolve) => {
    const outgoing = http.request(
      { host: url.hostname, port: url.port, method: request.method, path: request.path, headers, agent },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            contentType: String(response.headers['content-type'] ?? ''),
            text: Buffer.concat(chunks).toString('utf8'),
            reason: '',
          }),
        );
        response.on('error', (error) => resolve({ status: 'error', contentType: '', text: '', reason: `response: ${error.message}` }));
      },
    );
    outgoing.setTimeout(timeoutMs, () => {
      outgoing.destroy();
      resolve({ status: 'timeout', contentType: '', text: '', reason: `no answer within ${timeoutMs} ms` });
    });
    outgoing.on('error', (error) => resolve({ status: 'error', contentType: '', text: '', reason: `request: ${error.message}` }));
    outgoing.end(request.body);
  });
}

function parse(answer: Answer): unknown {
  if (!/json/.test(answer.contentType)) return answer.text;
  try {
    return answer.text === '' ? undefined : JSON.parse(answer.text);
  } catch {
    return Symbol('unparseable');
  }
}

/** Why the answer breaks a promise, or '' when it keeps them all. */
function judge(registry: ContractRegistry, request: FuzzRequest, answer: Answer): string {
  const status = answer.status as number;
  if (status >= 500) return `a ${status}`;
  const body = parse(answer);
  if (typeof body === 'symbol') return `${answer.contentType} that does not parse`;
  const pathname = request.path.split('?')[0]!;
  if (request.kind === 'graphql') return judgeGraphql(status, answer, body);
  if (pathname.startsWith('/scim/v2') && status >= 400) {
    const error = body as Json;
    if (!/^application\/scim\+json/.test(answer.contentType)) return `a SCIM error as ${answer.contentType || 'no content type'}`;
    if (error?.schemas?.[0] !== SCIM_ERROR || error.status !== String(status)) return 'a SCIM error without the Error schema or its status';
    if (status === 400 && typeof error.scimType !== 'string') return 'a SCIM 400 without scimType';
  } else if (status >= 400 && !/^application\/problem\+json/.test(answer.contentType)) {
    return `an error as ${answer.contentType || 'no content type'}, not Problem Details`;
  }
  const operation = registry.find(request.method, pathname);
  if (!operation) {
    // A hostile segment that no template matches (a path parameter cannot hold a slash): only a 4xx will do.
    return status >= 400 ? '' : `an undocumented path answered ${status}`;
  }
  try {
    // The server routes the path as sent; the URL parser would resolve a dot segment first.
    const [, query = ''] = request.path.split('?', 2);
    const routed = pathname
      .split('/')
      .map((segment) => (/^(\.|%2e){1,2}$/i.test(segment) ? 'dot-segment' : segment))
      .join('/');
    registry.validate(request.method, `http://x${routed}${query ? `?${query}` : ''}`, status, answer.contentType || null, body);
    return '';
  } catch (error) {
    return (error as Error).message.split('\n')[0]!;
  }
}

function judgeGraphql(status: number, answer: Answer, body: unknown): string {
  if (![200, 400, 401, 405, 406, 413, 415, 429].includes(status)) return `GraphQL answered ${status}`;
  if (status === 405 || status === 406 || status === 415 || status === 413) {
    if (!/json/.test(answer.contentType)) return `a GraphQL ${status} as ${answer.contentType}`;
  }
  const errors = (body as Json | undefined)?.errors as Json[] | undefined;
  if (status !== 200 && !errors?.length) return `a GraphQL ${status} without errors`;
  for (const error of errors ?? []) {
    const type = error?.extensions?.errorType as string | undefined;
    if (!type) return `a GraphQL error without extensions.errorType: ${JSON.stringify(error).slice(0, 200)}`;
    if (!ERROR_TYPES.has(type)) return `a GraphQL error of type ${type}: ${String(error.message).slice(0, 200)}`;
  }
  return '';
}

/** The run in two lines: what was sent, and what came back. */
export function summaryLines(result: FuzzResult): string[] {
  const kinds = Object.entries(result.byKind)
    .map(([kind, n]) => `${n} ${kind}`)
    .join(', ');
  const statuses = Object.entries(result.byStatus)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([status, n]) => `${status}: ${n}`)
    .join(', ');
  return [
    `fuzz: ${result.sent} requests (${kinds}) in ${(result.elapsedMs / 1000).toFixed(1)} s; ` +
      `${result.serverErrors} 5xx, ${result.violations} contract violations, ${result.hangs} hangs`,
    `statuses: ${statuses}`,
  ];
}

/** A few lines on what failed, grouped by reason, for a report. */
export function describeFailures(failures: FuzzFailure[], max = 20): string {
  const groups = new Map<string, FuzzFailure[]>();
  for (const failure of failures) {
    const key = `${failure.request.label}: ${failure.reason}`;
    groups.set(key, [...(groups.get(key) ?? []), failure]);
  }
  const severity = (f: FuzzFailure) => (f.status === 'timeout' || f.status === 'error' ? 0 : f.status >= 500 ? 1 : 2);
  return [...groups.entries()]
    .sort(([, a], [, b]) => severity(a[0]!) - severity(b[0]!) || b.length - a.length)
    .slice(0, max)
    .map(([key, group]) => {
      const first = group[0]!;
      const body = typeof first.request.body === 'string' ? first.request.body.slice(0, 200) : '';
      const headers = JSON.stringify(first.request.headers, (_k, v: unknown) =>
        typeof v === 'string' && v.length > 60 ? `${v.slice(0, 20)}…(${v.length})` : v,
      );
      return `${group.length}× ${key}\n    e.g. ${first.request.method} ${first.request.path.slice(0, 160)} as ${first.request.caller} ${headers} ${body.slice(0, 160)}\n    → ${first.status} ${first.body.slice(0, 300)}`;
    })
    .join('\n');
}
