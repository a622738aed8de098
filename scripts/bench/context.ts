/** What bench.ts hands every section, and what a section hands back. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { CaseResult, Settings } from './compare.ts';
import type { Postgres } from './databases.ts';
import { JWT_SECRET } from './fixtures.ts';
import type { LoadGenerator } from './load.ts';
import { startServer, tsx, type Pinning, type Server } from './procs.ts';

export interface BenchContext {
  load: LoadGenerator;
  pinning: Pinning;
  settings: Settings;
  quick: boolean;
  /** Whether the run includes this kind of data (`--db`). */
  runs(db: DbChoice): boolean;
  random: () => number;
  /** The embedded PostgreSQL server, started on first use. */
  postgres(): Promise<Postgres>;
  log(line: string): void;
}

export interface SectionResult {
  name: string;
  /** Markdown: what was measured and how, beyond the common method. */
  notes: string[];
  cases: CaseResult[];
}

export type Data =
  | { kind: 'memory' }
  | { kind: 'stub' }
  | { kind: 'pglite'; dataDir: (label: string) => string }
  | { kind: 'postgres'; url: string };

/** What `--db` picks: the stand-ins (in-memory resolvers, stubbed repository) or a database. */
export const DB_CHOICES = ['stand-in', 'pglite', 'postgres'] as const;
export type DbChoice = (typeof DB_CHOICES)[number];

export const DATA_LABEL: Record<Data['kind'], string> = {
  memory: 'in-memory resolvers',
  stub: 'stubbed repository',
  pglite: 'PGlite (file)',
  postgres: 'PostgreSQL',
};

/** Every server's DATA_DIR lives under one folder, removed when the harness exits. */
const DATA_DIRS = fs.mkdtempSync(path.join(os.tmpdir(), 'schemaforge-bench-data-'));
process.on('exit', () => fs.rmSync(DATA_DIRS, { recursive: true, force: true }));

/**
 * `npm start`'s command after its `prestart` build (scripts/build.mjs, which bench.ts runs once
 * before any section): the compiled application, no tsx.
 */
/** BENCH_SERVER_NODE_ARGS: Node options for our server on a database (`--cpu-prof --cpu-prof-dir=…` for a profile). */
const NPM_START = [...(process.env.BENCH_SERVER_NODE_ARGS?.split(' ').filter(Boolean) ?? []), '--enable-source-maps', 'dist/src/main.js'];

/** The environment `npm start` runs with in production: info logs (to /dev/null here), a JWT secret and a secrets key. */
export function productionEnv(extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const dataDir = fs.mkdtempSync(path.join(DATA_DIRS, 'server-'));
  return {
    ...process.env,
    NODE_ENV: 'production',
    LOG_LEVEL: 'info',
    AUTH_JWT_SECRET: JWT_SECRET,
    SECRETS_KEY: JWT_SECRET,
    DATA_DIR: dataDir,
    DATABASE_URL: '',
    ...extra,
  };
}

/**
 * Our server. On a database: dist/src/main.js itself, as `npm start` runs it. On in-memory resolvers
 * or the stubbed repository: serve.ts (through tsx), which wires the application as src/main.ts does
 * (`buildOurs`) and adds the stand-in.
 */
export function startOurs(
  ctx: BenchContext,
  data: Data,
  stand_in: 'ours-memory' | 'ours-stub',
  /** More environment for a server on a database (the webhooks section's receivers and CA). */
  env: NodeJS.ProcessEnv = {},
): Promise<Server> {
  switch (data.kind) {
    case 'pglite':
      return startServer('ours', NPM_START, productionEnv({ DATA_DIR: data.dataDir('ours'), ...env }), ctx.pinning.server);
    case 'postgres':
      return startServer('ours', NPM_START, productionEnv({ DATABASE_URL: data.url, ...env }), ctx.pinning.server);
    default:
      return startServer('ours', tsx('scripts/bench/serve.ts', stand_in, data.kind), productionEnv({}), ctx.pinning.server);
  }
}

export function startPeer(ctx: BenchContext, name: string, kind: string, data: Data): Promise<Server> {
  const arg =
    data.kind === 'pglite'
      ? `pglite:${path.join(data.dataDir(name.replace(/\W+/g, '-')), 'pglite')}`
      : data.kind === 'postgres'
        ? `postgres:${data.url}`
        : data.kind;
  return startServer(name, tsx('scripts/bench/serve.ts', kind, arg), productionEnv({}), ctx.pinning.server);
}

export async function stopAll(servers: Server[]): Promise<void> {
  for (const server of servers) await server.stop();
}
