// test-suite: once (who may call what is decided by the spec and the services, not by the engine)
/**
 * The authorization matrix (docs/security.md): every operation of every OpenAPI document and every
 * GraphQL root field, called by each of six callers (anonymous, USER, another USER of the same
 * tenant, tenant A's ADMIN, a user of tenant B, the platform ADMIN) against resources that belong to
 * USER unless the row says otherwise, and by a portal session of tenant A with every intent, whose
 * answer is tenant A's ADMIN's where the operation accepts the session and an anonymous caller's
 * elsewhere (rules.ts `portalCell`). Each cell's expected answer comes from the row's rule
 * (./authorization-matrix/rules.ts), written from the trust model, and three more things hold:
 *
 * - a refused call changes no stored row (a digest of every table before and after);
 * - a successful list or read shows the caller only what it may see (other tenants' users, other
 *   callers' drafts and orders);
 * - docs/security.md prints this very table (MATRIX_WRITE_DOCS=1 rewrites it there).
 *
 * The world is built once and put back after every call that changed it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parse, Kind } from 'graphql';
import { sql } from 'kysely';
import t, { type Test } from 'tap';
import { gql } from '../graphql/gql.ts';
import { primed, record, wsClient } from '../graphql/ws-client.ts';
import { startDnsServer } from '../helpers/dns-server.ts';
import { snapshotData } from '../helpers/fresh-data.ts';
import { startServer, type TestServer } from '../helpers/server.ts';
import { RecordingMail } from '../sso/sso-fixtures.ts';
import {
  expected,
  portalCell,
  renderTable,
  TABLE_END,
  TABLE_START,
  type PortalCoverage,
  type TableRow,
} from './authorization-matrix/rules.ts';
import { GRAPHQL_ROWS, REST_ROWS, ROWS, SUBSCRIPTION_ROWS, type Context, type Row } from './authorization-matrix/rows.ts';
import { buildWorld, CALLERS, type Caller, type World } from './authorization-matrix/world.ts';
import { SERVED_METHODS } from '../../src/http/openapi-methods.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SECURITY_DOC = path.join(ROOT, 'docs/security.md');
const METRICS_TOKEN = 'matrix-metrics-token-that-is-long-enough';

interface Operation {
  method: string;
  template: string;
  pattern: RegExp;
  /** How it treats a portal session: its `x-portal-intent`, the portal's own `portalSession` security, or not at all. */
  portal: PortalCoverage;
}

function portalCoverage(op: any): PortalCoverage {
  if (op['x-portal-intent']) return 'intent';
  return (op.security ?? []).some((requirement: object) => 'portalSession' in requirement) ? 'own' : 'none';
}

/** operationId → method and path template, from the served documents. */
function operations(): Map<string, Operation> {
  const found = new Map<string, Operation>();
  const dir = path.join(ROOT, 'generated/openapi');
  for (const file of fs.readdirSync(dir).filter((name) => name.endsWith('.json'))) {
    const doc = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'));
    for (const [template, item] of Object.entries<any>(doc.paths ?? {})) {
      for (const method of SERVED_METHODS) {
        if (!item[method]) continue;
        const pattern = new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`);
        found.set(item[method].operationId, { method: method.toUpperCase(), template, pattern, portal: portalCoverage(item[method]) });
      }
    }
  }
  return found;
}

/** Query.*, Mutation.* and Subscription.* fields of the SDL in schema/. */
function rootFields(): string[] {
  const fields: string[] = [];
  const dir = path.join(ROOT, 'schema');
  for (const file of fs.readdirSync(dir).filter((name) => name.endsWith('.graphql'))) {
    for (const definition of parse(fs.readFileSync(path.join(dir, file), 'utf8')).definitions) {
      if (definition.kind !== Kind.OBJECT_TYPE_DEFINITION && definition.kind !== Kind.OBJECT_TYPE_EXTENSION) continue;
      if (!['Query', 'Mutation', 'Subscription'].includes(definition.name.value)) continue;
      for (const field of definition.fields ?? []) fields.push(`${definition.name.value}.${field.name.value}`);
    }
  }
  return fields.sort();
}

const OPERATIONS = operations();

function tableRows(): TableRow[] {
  return ROWS.map((row) => {
    if (row.kind !== 'rest') return { operation: `\`${row.field}\``, target: row.target, rule: row.rule, ok: 'ok', portal: 'none' };
    const op = OPERATIONS.get(row.operationId);
    return {
      operation: `\`${op?.method} ${op?.template}\` (${row.operationId})`,
      target: row.target,
      rule: row.rule,
      ok: String(row.ok),
      portal: op?.portal ?? 'none',
    };
  });
}

/**
 * A digest per table of everything stored, but for what a refused call may rightly change: the
 * fixed-window counters every sign-in attempt spends, and when a session was last seen.
 */
async function fingerprint(server: TestServer): Promise<Record<string, string>> {
  const { rows: tables } = await sql<{ name: string }>`
    select tablename as name from pg_tables where schemaname = 'public' and tablename not like 'kysely\\_%' and tablename <> 'rate_limit_windows'
    order by tablename`.execute(server.database.db);
  const columns: Record<string, string> = {
    sessions: '(x.id, x.user_id, x.roles, x.expires_at, x.revoked_at)',
    portal_sessions: '(x.id, x.tenant_id, x.intents, x.expires_at, x.ended_at)',
  };
  const digests = tables.map(({ name }) => {
    const value = columns[name] ?? 'x';
    return `(select md5(coalesce(string_agg(${value}::text, '|' order by ${value}::text), '')) from public."${name}" x) as "${name}"`;
  });
  const { rows } = await sql.raw<Record<string, string>>(`select ${digests.join(', ')}`).execute(server.database.db);
  return rows[0]!;
}

interface Answer {
  cell: string | number;
  body: any;
  text: string;
}

async function callRest(context: Context, world: World, row: Extract<Row, { kind: 'rest' }>, caller: Caller): Promise<Answer> {
  const operation = OPERATIONS.get(row.operationId)!;
  const request = await row.request(world, caller, context);
  const result = await context.server.api.call(operation.method, request.path, {
    ...(caller === 'anonymous' ? {} : { token: world.token[caller] }),
    ...(request.body !== undefined ? { body: request.body } : {}),
    ...(request.raw !== undefined ? { raw: request.raw } : {}),
    ...(request.headers ? { headers: request.headers } : {}),
    redirect: 'manual',
  });
  return { cell: result.status === row.ok ? 'ok' : result.status, body: result.body, text: result.text };
}

/**
 * The portal session's call: its cookie and this server's Origin, no token. Where the operation
 * accepts the session it is called as tenant A's ADMIN would call it, elsewhere as anyone would.
 */
async function callRestAsPortal(context: Context, world: World, row: Extract<Row, { kind: 'rest' }>): Promise<Answer> {
  const operation = OPERATIONS.get(row.operationId)!;
  const request = await row.request(world, operation.portal === 'intent' ? 'tenantAdmin' : 'anonymous', context);
  const result = await context.server.api.call(operation.method, request.path, {
    headers: { ...request.headers, cookie: world.portal.cookie, origin: world.portal.origin },
    ...(request.body !== undefined ? { body: request.body } : {}),
    ...(request.raw !== undefined ? { raw: request.raw } : {}),
    redirect: 'manual',
  });
  return { cell: result.status === row.ok ? 'ok' : result.status, body: result.body, text: result.text };
}

async function callGraphQLAsPortal(context: Context, world: World, row: Extract<Row, { kind: 'graphql' }>): Promise<Answer> {
  const response = await fetch(`${context.server.baseUrl}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie: world.portal.cookie, origin: world.portal.origin },
    body: JSON.stringify({ query: row.document, variables: row.variables?.(world, 'anonymous') }),
  });
  const body = (await response.json()) as Parameters<typeof graphqlCell>[0];
  return { cell: graphqlCell(body), body, text: JSON.stringify(body) };
}

function graphqlCell(body: { data?: unknown; errors?: { extensions?: { errorType?: string } }[] }): string {
  if (body.errors?.length) return body.errors[0]!.extensions?.errorType ?? JSON.stringify(body.errors[0]);
  return 'ok';
}

async function callGraphQL(context: Context, world: World, row: Extract<Row, { kind: 'graphql' }>, caller: Caller): Promise<Answer> {
  const token = caller === 'anonymous' ? undefined : world.token[caller];
  const result = await gql(context.server, row.document, row.variables?.(world, caller), token);
  return { cell: graphqlCell(result.body), body: result.body, text: JSON.stringify(result.body) };
}

async function subscribe(
  t: Test,
  context: Context,
  world: World,
  row: Extract<Row, { kind: 'subscription' }>,
  caller: Caller,
): Promise<Answer> {
  const client = wsClient(t, context.server.baseUrl, caller === 'anonymous' ? undefined : world.token[caller]);
  const recording = record(client, row.document, row.variables?.(world));
  await primed(recording, () => row.probe(context.server, world));
  recording.stop();
  await client.dispose();
  const first = recording.results[0]!;
  return { cell: graphqlCell(first), body: first, text: JSON.stringify(first) };
}

let context: Context;
let world: World;
let restoreWorld: () => Promise<void>;

t.before(async () => {
  const dns = await startDnsServer(t);
  const mail = new RecordingMail();
  const server = await startServer(t, {
    baseUrlIsListenAddress: true,
    mail,
    env: {
      DNS_RESOLVER: dns.address,
      ALLOW_INSECURE_IDP: 'true',
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      METRICS_TOKEN,
    },
  });
  context = { server, mail };
  world = await buildWorld(t, server, dns);
  restoreWorld = await snapshotData(server.database, 'matrix_world');
});

t.test('every operation of every document and every root field has a row', async (t) => {
  const rowed = new Set(REST_ROWS.map((row) => row.operationId));
  t.same(
    [...OPERATIONS.keys()].filter((id) => !rowed.has(id)),
    [],
    'every operationId',
  );
  t.same(
    REST_ROWS.filter((row) => !OPERATIONS.has(row.operationId)).map((row) => row.operationId),
    [],
    'no row names an unknown operation',
  );
  const fields = new Set([...GRAPHQL_ROWS, ...SUBSCRIPTION_ROWS].map((row) => row.field));
  t.same(
    rootFields().filter((field) => !fields.has(field)),
    [],
    'every Query, Mutation and Subscription field',
  );
  for (const row of REST_ROWS) {
    const request = await row.request(world, 'user', context);
    t.match(request.path.split('?')[0], OPERATIONS.get(row.operationId)!.pattern, `${row.operationId} is called on its own path`);
  }
});

t.test('docs/security.md prints the table', async (t) => {
  const table = renderTable(tableRows());
  const doc = fs.existsSync(SECURITY_DOC) ? fs.readFileSync(SECURITY_DOC, 'utf8') : '';
  const start = doc.indexOf(TABLE_START);
  const end = doc.indexOf(TABLE_END);
  const printed = start >= 0 && end > start ? doc.slice(start, end + TABLE_END.length) : null;
  if (process.env.MATRIX_WRITE_DOCS === '1' && printed !== null && printed !== table) {
    fs.writeFileSync(SECURITY_DOC, doc.replace(printed, table));
    t.pass('rewrote the table in docs/security.md');
    return;
  }
  t.equal(
    printed,
    table,
    'the table between the markers is the test’s (MATRIX_WRITE_DOCS=1 npm test -- test/foundation/authorization-matrix.test.ts)',
  );
});

for (const row of ROWS) {
  const name = row.kind === 'rest' ? row.operationId : row.field;
  t.test(`${name} → ${row.target} (${row.rule})`, async (t) => {
    const mutates =
      row.kind === 'rest'
        ? (row.mutates ?? OPERATIONS.get(row.operationId)!.method !== 'GET')
        : row.kind !== 'graphql' || row.field.startsWith('Mutation.');
    for (const caller of CALLERS) {
      const want = expected(row.rule, caller);
      const checksRefusal = want !== 'ok' && row.kind !== 'subscription';
      const before = checksRefusal ? await fingerprint(context.server) : null;
      const answer =
        row.kind === 'rest'
          ? await callRest(context, world, row, caller)
          : row.kind === 'graphql'
            ? await callGraphQL(context, world, row, caller)
            : await subscribe(t, context, world, row, caller);
      t.equal(answer.cell, want, `${caller}: ${want}`, answer.cell === want ? {} : { answer: answer.text.slice(0, 500) });
      if (answer.cell === 'ok' && row.kind !== 'subscription' && row.check) {
        t.equal(row.check(world, caller, answer.body, answer.text), null, `${caller} is shown only what it may see`);
      }
      let changed: string[] = [];
      if (before) {
        const after = await fingerprint(context.server);
        changed = Object.keys(after).filter((table) => after[table] !== before[table]);
        t.same(changed, [], `${caller}: the refusal changed nothing stored`);
      }
      if (mutates && (answer.cell === 'ok' || answer.cell !== want || changed.length)) await restoreWorld();
    }
    // The portal session (a WebSocket carries no cookie of it: subscriptions are left out).
    if (row.kind === 'subscription') return;
    const coverage = row.kind === 'rest' ? OPERATIONS.get(row.operationId)!.portal : 'none';
    const want = portalCell(row.rule, coverage);
    // Where the cookie is no credential the call is the anonymous caller's, whose refusal was just
    // checked to change nothing; where the session is read, its refusals are checked again.
    const before = want !== 'ok' && coverage !== 'none' ? await fingerprint(context.server) : null;
    const answer = row.kind === 'rest' ? await callRestAsPortal(context, world, row) : await callGraphQLAsPortal(context, world, row);
    t.equal(answer.cell, want, `portal session: ${want}`, answer.cell === want ? {} : { answer: answer.text.slice(0, 500) });
    let changed: string[] = [];
    if (before) {
      const after = await fingerprint(context.server);
      changed = Object.keys(after).filter((table) => after[table] !== before[table]);
      t.same(changed, [], 'portal session: the refusal changed nothing stored');
    }
    if (mutates && (answer.cell === 'ok' || answer.cell !== want || changed.length)) await restoreWorld();
  });
}
