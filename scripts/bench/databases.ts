/**
 * The databases the benchmarks read: an embedded PostgreSQL server the harness starts itself (as
 * scripts/test-suite.ts does), one database per section, and seeded PGlite directories copied once
 * per server process (a PGlite directory has one owner at a time).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Kysely } from 'kysely';
import pg from 'pg';
import type { DB } from '../../generated/db/types.ts';
import { openDatabase } from '../../src/db/database.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { startEmbeddedPostgres } from '../lib/embedded-postgres.ts';

export interface Postgres {
  url(database: string): string;
  version: string;
  /** Stops the server and removes its data. */
  stop(): Promise<void>;
  /** Stops the server and keeps its data, for `resume` (the fault scripts' restart). */
  pause(): Promise<void>;
  resume(): Promise<void>;
}

/**
 * A PostgreSQL server of embedded-postgres on loopback. Benchmarks run it with fsync off; `durable`
 * keeps fsync on, as production has it (the fault scripts, which stop and start it under load).
 */
export async function startPostgres(options: { durable?: boolean } = {}): Promise<Postgres> {
  const server = await startEmbeddedPostgres({
    prefix: 'schemaforge-bench-pg-',
    maxConnections: 200,
    durable: options.durable,
    sharedBuffers: options.durable ? undefined : '256MB',
  });
  const client = new pg.Client(server.url('postgres'));
  await client.connect();
  const { rows } = await client.query<{ server_version: string }>('show server_version');
  await client.end();
  return {
    url: server.url,
    version: rows[0]!.server_version,
    stop: server.stop,
    pause: server.pause,
    resume: server.resume,
  };
}

/** A fresh, migrated, seeded database on the server; returns its URL. */
export async function seedPostgres(server: Postgres, name: string, seed: (db: Kysely<DB>) => Promise<void>): Promise<string> {
  const admin = new pg.Client(server.url('postgres'));
  await admin.connect();
  await admin.query(`drop database if exists ${name} with (force)`);
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = server.url(name);
  const handle = await openDatabase({ kind: 'postgres', url });
  try {
    await migrateToLatest(handle.db);
    await seed(handle.db);
  } finally {
    await handle.close();
  }
  return url;
}

export interface SeededPGlite {
  /** A private copy for one server: a DATA_DIR holding `pglite/`, as src/main.ts lays it out. */
  copy(label: string): string;
  remove(): void;
}

export async function seedPGlite(seed: (db: Kysely<DB>) => Promise<void>): Promise<SeededPGlite> {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'schemaforge-bench-pglite-'));
  process.on('exit', () => fs.rmSync(base, { recursive: true, force: true }));
  const seeded = path.join(base, 'seed');
  const handle = await openDatabase({ kind: 'pglite-file', dataDir: path.join(seeded, 'pglite') });
  try {
    await migrateToLatest(handle.db);
    await seed(handle.db);
  } finally {
    await handle.close();
  }
  return {
    copy(label) {
      const target = path.join(base, label);
      fs.cpSync(seeded, target, { recursive: true });
      return target;
    },
    remove: () => fs.rmSync(base, { recursive: true, force: true }),
  };
}
