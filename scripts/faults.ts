/**
 * `npm run faults -- <scenario> [--rounds N]`: fault scenarios that take longer than a test should,
 * each against real server processes (`node dist/src/main.js`) on loopback, printing what it found
 * and exiting 1 if anything acknowledged was lost. docs/reliability.md records their results.
 *
 * - `kill-embedded`: the server on the embedded database, writing products 8 at a time, is killed
 *   with SIGKILL at a random moment (0.3–1.5 s in); it is started again on the same folder, which must
 *   open cleanly and hold every product whose creation was answered 201. N rounds (default 20).
 * - `sigterm-under-load`: the same load plus GraphQL subscriptions over WebSocket; SIGTERM in the
 *   middle. Every request must get a whole answer or be refused cleanly (a refused connection or
 *   503), every WebSocket must be closed with a close code, the process must exit 0 within the
 *   shutdown timeout, and after a restart every acknowledged write must be there. N rounds (default 5).
 * - `postgres-restart`: a server on a PostgreSQL server of its own (fsync on), writing 8 at a time;
 *   PostgreSQL is stopped for 3 s and started again. /readyz must say 503 while it is down, the server
 *   must be ready again by itself, writes refused meanwhile must be 503s answered in time, and every
 *   acknowledged write must be there. N rounds (default 3).
 * - `disk-full` (root: it mounts a tmpfs): the embedded database on a 160 MB disk, filled with uploads
 *   until one is refused; the refusal must be a 507 Problem, stored files must read back intact, and
 *   the folder must open again after a restart.
 */
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { signToken } from '../src/auth/jwt.ts';
import { ensureDistBuilt, startServerProcess, type ServerProcess } from '../test/helpers/server-process.ts';
import { startPostgres } from './bench/databases.ts';

const { values, positionals } = parseArgs({ options: { rounds: { type: 'string' } }, allowPositionals: true });
const scenario = positionals[0];
const JWT_SECRET = 'faults-jwt-secret-0123456789abcdefghijkl';

ensureDistBuilt();

async function start(dataDir: string): Promise<ServerProcess> {
  return startServerProcess({
    via: 'node',
    env: { DATA_DIR: dataDir, DATABASE_URL: '', AUTH_JWT_SECRET: JWT_SECRET, LOG_LEVEL: 'warn', NODE_ENV: 'development' },
  });
}

interface Load {
  acknowledged: string[];
  /** Answered 503: the server refused it cleanly (stopping, or the database unreachable). */
  unavailable: number;
  /** Refused at connect: never sent. */
  refused: number;
  /** Sent, then the connection dropped with no answer (the SKUs): processed or not, the stored data says. */
  cut: string[];
  failed: string[];
  /** The longest any request waited for its answer or its failure. */
  slowestMs: number;
  stop(): Promise<void>;
}

/** Creates products, `concurrency` at a time, until stopped; records what was answered 201. */
function writeLoad(base: string, token: string, round: number, concurrency = 8): Load {
  const load: Load = { acknowledged: [], unavailable: 0, refused: 0, cut: [], failed: [], slowestMs: 0, stop: async () => undefined };
  let running = true;
  let n = 0;
  const worker = async () => {
    while (running) {
      const sku = `R${round}-${n++}`;
      const sent = Date.now();
      try {
        const response = await fetch(`${base}/api/v1/products`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
          body: JSON.stringify({ name: `Product ${sku}`, price: 9.99, sku, category: 'HOME', stockQuantity: 1 }),
        });
        const body = (await response.json()) as { id?: string };
        load.slowestMs = Math.max(load.slowestMs, Date.now() - sent);
        if (response.status === 201 && body.id) load.acknowledged.push(body.id);
        else if (response.status === 503) load.unavailable++;
        else load.failed.push(`${response.status} ${JSON.stringify(body).slice(-240)}`);
      } catch (error) {
        // The process is gone or going: a refused or dropped connection is no acknowledgement.
        // Refused at connect (a listener closed, or closing with connections it never accepted): never sent.
        const cause = (error as { cause?: { code?: string; syscall?: string } }).cause;
        if (cause?.code === 'ECONNREFUSED' || cause?.syscall === 'connect') load.refused++;
        else load.cut.push(sku);
        await new Promise((r) => setTimeout(r, 20));
      }
    }
  };
  const workers = Array.from({ length: concurrency }, worker);
  load.stop = async () => {
    running = false;
    await Promise.all(workers);
  };
  return load;
}

/** The SKUs of every stored product. */
async function storedSkus(base: string, token: string): Promise<Set<string>> {
  const skus = new Set<string>();
  for (let page = 0; ; page++) {
    const response = await fetch(`${base}/api/v1/products?page=${page}&size=100`, { headers: { authorization: `Bearer ${token}` } });
    const body = (await response.json()) as { content: { sku: string }[] };
    for (const product of body.content) skus.add(product.sku);
    if (body.content.length < 100) return skus;
  }
}

async function missingOf(base: string, token: string, ids: string[]): Promise<string[]> {
  const missing: string[] = [];
  for (const id of ids) {
    const response = await fetch(`${base}/api/v1/products/${id}`, { headers: { authorization: `Bearer ${token}` } });
    await response.arrayBuffer();
    if (response.status !== 200) missing.push(`${id} (${response.status})`);
  }
  return missing;
}

async function killEmbedded(rounds: number): Promise<boolean> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'schemaforge-kill-'));
  const token = await signToken(JWT_SECRET, { sub: 'faults', roles: ['ADMIN'] });
  const acknowledged: string[] = [];
  let ok = true;
  try {
    for (let round = 1; round <= rounds; round++) {
      const server = await start(dataDir);
      const ready = await fetch(`${server.base}/readyz`);
      const missing = await missingOf(server.base, token, acknowledged);
      const load = writeLoad(server.base, token, round);
      const after = 300 + Math.floor(Math.random() * 1200);
      await new Promise((r) => setTimeout(r, after));
      server.child.kill('SIGKILL');
      await server.exited;
      await load.stop();
      acknowledged.push(...load.acknowledged);
      console.log(
        `round ${round}: opened ${ready.status === 200 ? 'cleanly' : `with /readyz ${ready.status}`}, ` +
          `${acknowledged.length - load.acknowledged.length} earlier writes checked, ${missing.length} missing; ` +
          `killed after ${after} ms with ${load.acknowledged.length} writes acknowledged, ${load.failed.length} failed`,
      );
      if (ready.status !== 200 || missing.length || load.failed.length) {
        ok = false;
        console.log(`  missing: ${missing.slice(0, 5).join(', ')}; failed: ${load.failed.slice(0, 3).join(' | ')}`);
      }
    }
    const last = await start(dataDir);
    const missing = await missingOf(last.base, token, acknowledged);
    last.child.kill('SIGTERM');
    console.log(
      `kill-embedded: ${rounds} kills, ${acknowledged.length} acknowledged writes, ${missing.length} missing after the last restart`,
    );
    await last.exited;
    return ok && missing.length === 0;
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

async function sigtermUnderLoad(rounds: number): Promise<boolean> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'schemaforge-term-'));
  const token = await signToken(JWT_SECRET, { sub: 'faults', roles: ['ADMIN'] });
  const acknowledged: string[] = [];
  let ok = true;
  try {
    for (let round = 1; round <= rounds; round++) {
      const server = await start(dataDir);
      const closeCodes: number[] = [];
      const clients = Array.from({ length: 4 }, () =>
        createClient({
          url: `${server.base.replace('http', 'ws')}/graphql`,
          webSocketImpl: WebSocket,
          retryAttempts: 0,
          on: { closed: (event) => closeCodes.push((event as { code: number }).code) },
        }),
      );
      let events = 0;
      for (const client of clients) {
        client.subscribe(
          { query: 'subscription { postCreated { id } }' },
          { next: () => events++, error: () => undefined, complete: () => undefined },
        );
      }
      const load = writeLoad(server.base, token, round, 16);
      await new Promise((r) => setTimeout(r, 1500));
      const signalled = Date.now();
      server.child.kill('SIGTERM');
      const code = await server.exited;
      const took = Date.now() - signalled;
      await load.stop();
      acknowledged.push(...load.acknowledged);
      await Promise.all(clients.map(async (c) => c.dispose()));
      const restarted = await start(dataDir);
      const missing = await missingOf(restarted.base, token, acknowledged);
      // A request cut after it was sent: stored means it was in flight and its answer was lost (a
      // failure); not stored means the server never read it (the connection was reset before).
      const stored = await storedSkus(restarted.base, token);
      const answerLost = load.cut.filter((sku) => stored.has(sku));
      restarted.child.kill('SIGTERM');
      await restarted.exited;
      const allClosedWithCode = closeCodes.length === clients.length && closeCodes.every((c) => c >= 1000);
      console.log(
        `round ${round}: exit ${code} ${took} ms after SIGTERM; ${load.acknowledged.length} writes acknowledged, ` +
          `${load.unavailable + load.refused} refused cleanly (${load.unavailable} 503, ${load.refused} at connect), ${load.cut.length} reset before the server read them, ` +
          `${answerLost.length} processed with the answer lost, ${load.failed.length} failed otherwise; ` +
          `WebSocket close codes ${closeCodes.join(', ') || 'none'}; ` +
          `${missing.length} acknowledged writes missing after restart`,
      );
      if (code !== 0 || took > 20_000 || load.failed.length || answerLost.length || !allClosedWithCode || missing.length) {
        ok = false;
        console.log(`  failed: ${load.failed.slice(0, 3).join(' | ')}; missing: ${missing.slice(0, 5).join(', ')}`);
      }
    }
    console.log(`sigterm-under-load: ${rounds} rounds, ${acknowledged.length} acknowledged writes, ${ok ? 'nothing lost' : 'FAILED'}`);
    return ok;
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

async function postgresRestart(rounds: number): Promise<boolean> {
  const pg = await startPostgres({ durable: true });
  const token = await signToken(JWT_SECRET, { sub: 'faults', roles: ['ADMIN'] });
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'schemaforge-pgfault-data-'));
  const app = await startServerProcess({
    via: 'node',
    env: { DATA_DIR: dataDir, DATABASE_URL: pg.url('postgres'), AUTH_JWT_SECRET: JWT_SECRET, LOG_LEVEL: 'error', NODE_ENV: 'development' },
  });
  const acknowledged: string[] = [];
  let ok = true;
  try {
    for (let round = 1; round <= rounds; round++) {
      const load = writeLoad(app.base, token, round, 8);
      await new Promise((r) => setTimeout(r, 1000));
      const stoppedAt = Date.now();
      await pg.pause();
      const whileDown: number[] = [];
      while (Date.now() - stoppedAt < 3000) {
        if (app.child.exitCode !== null)
          throw new Error(`the server exited (${app.child.exitCode}) when PostgreSQL stopped: ${app.stderr().slice(-1500)}`);
        whileDown.push((await fetch(`${app.base}/readyz`)).status);
        await new Promise((r) => setTimeout(r, 200));
      }
      await pg.resume();
      const startedAt = Date.now();
      let ready = 0;
      while ((ready = (await fetch(`${app.base}/readyz`)).status) !== 200 && Date.now() - startedAt < 30_000) {
        await new Promise((r) => setTimeout(r, 100));
      }
      const recoveredMs = Date.now() - startedAt;
      await new Promise((r) => setTimeout(r, 1000));
      await load.stop();
      acknowledged.push(...load.acknowledged);
      const missing = await missingOf(app.base, token, acknowledged);
      const statuses = [...new Set(whileDown)].join('/');
      const failures = new Map<string, number>();
      for (const f of load.failed) failures.set(f.slice(0, 3), (failures.get(f.slice(0, 3)) ?? 0) + 1);
      console.log(
        `round ${round}: /readyz ${statuses} while down; ready ${recoveredMs} ms after the restart; ` +
          `${load.acknowledged.length} writes acknowledged, ${load.unavailable} refused with 503 while down, ` +
          `${[...failures].map(([s, n]) => `${n}× ${s}`).join(', ') || 'no other answer'}` +
          `${load.refused + load.cut.length ? `, ${load.refused + load.cut.length} without an answer` : ''}; slowest answer ${load.slowestMs} ms; ` +
          `${missing.length} acknowledged writes missing`,
      );
      if (
        whileDown.includes(200) ||
        ready !== 200 ||
        missing.length ||
        load.slowestMs > 30_000 ||
        failures.size ||
        load.cut.length ||
        load.refused
      ) {
        ok = false;
        console.log(`  e.g. ${load.failed.slice(0, 2).join(' | ')}`);
      }
    }
    console.log(`postgres-restart: ${rounds} restarts, ${acknowledged.length} acknowledged writes, ${ok ? 'nothing lost' : 'FAILED'}`);
    return ok;
  } finally {
    app.child.kill('SIGTERM');
    await app.exited;
    await pg.stop().catch(() => undefined);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * The embedded database's folder on a small tmpfs (root only: it mounts one), filled with uploads of
 * random 5 MB files until the server refuses one; the refusal must be a 507 Problem, the server must
 * go on serving, every stored file must read back byte for byte, and a restart must open the folder.
 */
async function diskFull(): Promise<boolean> {
  const mountPoint = fs.mkdtempSync(path.join(os.tmpdir(), 'schemaforge-diskfull-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=160m', 'tmpfs', mountPoint]);
  } catch (error) {
    console.error(`disk-full mounts a 160 MB tmpfs and needs root: ${(error as Error).message}`);
    fs.rmSync(mountPoint, { recursive: true, force: true });
    return false;
  }
  const token = await signToken(JWT_SECRET, { sub: 'faults-uploader', roles: [] });
  const env = {
    DATA_DIR: mountPoint,
    DATABASE_URL: '',
    AUTH_JWT_SECRET: JWT_SECRET,
    LOG_LEVEL: 'warn',
    NODE_ENV: 'development',
    FILES_QUOTA_BYTES: '1000000000',
  };
  const stored = new Map<string, string>();
  let ok = true;
  try {
    const server = await startServerProcess({ via: 'node', env });
    const free = () => Math.round((fs.statfsSync(mountPoint).bavail * fs.statfsSync(mountPoint).bsize) / 1048576);
    let refusal: { status: number; body: string } | null = null;
    for (let i = 0; i < 40 && !refusal; i++) {
      const bytes = randomBytes(5_000_000);
      const form = new FormData();
      form.append('file', new Blob([bytes]), `f${i}.bin`);
      const response = await fetch(`${server.base}/api/v1/files`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}` },
        body: form,
      });
      const body = await response.text();
      if (response.status === 201) stored.set((JSON.parse(body) as { id: string }).id, createHash('sha256').update(bytes).digest('hex'));
      else refusal = { status: response.status, body };
      console.log(`upload ${i + 1}: ${response.status}, ${free()} MiB free`);
    }
    const problem = refusal ? (JSON.parse(refusal.body) as { type?: string }) : {};
    const health = (await fetch(`${server.base}/healthz`)).status;
    const readBack = async (base: string) => {
      let same = 0;
      for (const [id, digest] of stored) {
        const response = await fetch(`${base}/api/v1/files/${id}`, { headers: { authorization: `Bearer ${token}` } });
        if (
          createHash('sha256')
            .update(Buffer.from(await response.arrayBuffer()))
            .digest('hex') === digest
        )
          same++;
      }
      return same;
    };
    const sameBefore = await readBack(server.base);
    server.child.kill('SIGTERM');
    const exit = await server.exited;
    const restarted = await startServerProcess({ via: 'node', env }).catch((error: Error) => error);
    const sameAfter = restarted instanceof Error ? 0 : await readBack(restarted.base);
    if (!(restarted instanceof Error)) {
      restarted.child.kill('SIGTERM');
      await restarted.exited;
    }
    console.log(
      `disk-full: ${stored.size} uploads stored, then ${refusal ? `${refusal.status} ${problem.type ?? refusal.body.slice(0, 120)}` : 'no refusal'}; ` +
        `/healthz ${health}; ${sameBefore}/${stored.size} files read back intact; SIGTERM exit ${exit}; ` +
        `restart ${restarted instanceof Error ? `failed: ${restarted.message.slice(0, 200)}` : 'opened cleanly'}, ${sameAfter}/${stored.size} intact after it`,
    );
    ok =
      stored.size > 0 &&
      refusal?.status === 507 &&
      problem.type === '/problems/insufficient-storage' &&
      health === 200 &&
      sameBefore === stored.size &&
      sameAfter === stored.size &&
      exit === 0;
    return ok;
  } finally {
    execFileSync('umount', [mountPoint]);
    fs.rmSync(mountPoint, { recursive: true, force: true });
  }
}

if (scenario === 'disk-full') process.exitCode = (await diskFull()) ? 0 : 1;
else if (scenario === 'postgres-restart') process.exitCode = (await postgresRestart(Number(values.rounds ?? 3))) ? 0 : 1;
else if (scenario === 'kill-embedded') process.exitCode = (await killEmbedded(Number(values.rounds ?? 20))) ? 0 : 1;
else if (scenario === 'sigterm-under-load') process.exitCode = (await sigtermUnderLoad(Number(values.rounds ?? 5))) ? 0 : 1;
else {
  console.error('usage: npm run faults -- kill-embedded|sigterm-under-load|postgres-restart|disk-full [--rounds N]');
  process.exitCode = 2;
}
