/**
 * Seed builder for the pagination tests: users and posts inserted straight through Kysely (the posts
 * service is not needed to list posts), with exact control over created_at, including ties and
 * microsecond differences, which is what the ordering rules are about.
 */
import { sql } from 'kysely';
import type { Database } from '../../src/db/database.ts';

export type Status = 'DRAFT' | 'PUBLISHED' | 'ARCHIVED';

export interface SeededPost {
  id: number;
  authorId: string;
  status: Status;
  /** Exact UTC text with microseconds, as the cursors carry it. */
  createdAt: string;
}

export interface PostSpec {
  author: string;
  status?: Status;
  /** Microseconds since the epoch; exact, unlike a JS Date. */
  createdAtMicros: bigint;
}

/** 2024-01-01T00:00:00Z in microseconds: the tests' time origin. */
export const ORIGIN_MICROS = 1_704_067_200_000_000n;

function microsToText(micros: bigint): string {
  const seconds = micros / 1_000_000n;
  const rest = micros % 1_000_000n;
  return `${new Date(Number(seconds) * 1000).toISOString().slice(0, 19)}.${rest.toString().padStart(6, '0')}Z`;
}

/** Newest first by (created_at, id): the order every list must produce. */
export function newestFirst(a: SeededPost, b: SeededPost): number {
  if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt ? 1 : -1;
  return b.id - a.id;
}

let slugCounter = 0;

export class Seed {
  constructor(private readonly db: Database) {}

  async users(...ids: string[]): Promise<this> {
    await this.db
      .insertInto('users')
      .values(ids.map((id) => ({ id, username: id, email: `${id}@example.test`, display_name: id })))
      .onConflict((oc) => oc.column('id').doNothing())
      .execute();
    return this;
  }

  async posts(specs: PostSpec[]): Promise<SeededPost[]> {
    if (!specs.length) return [];
    const slugs = specs.map(() => `post-${++slugCounter}-${process.pid}`);
    const rows = await this.db
      .insertInto('posts')
      .values(
        specs.map((s, i) => ({
          author_id: s.author,
          title: `Title ${slugs[i]}`,
          content: `Body of ${slugs[i]}`,
          slug: slugs[i]!,
          status: s.status ?? 'PUBLISHED',
          created_at: sql<Date>`cast(${microsToText(s.createdAtMicros)} as timestamptz)`,
          updated_at: sql<Date>`cast(${microsToText(s.createdAtMicros)} as timestamptz)`,
        })),
      )
      .returning(['id', 'slug'])
      .execute();
    const idBySlug = new Map(rows.map((r) => [r.slug, r.id]));
    return specs.map((s, i) => ({
      id: idBySlug.get(slugs[i]!)!,
      authorId: s.author,
      status: s.status ?? 'PUBLISHED',
      createdAt: microsToText(s.createdAtMicros),
    }));
  }

  async deletePosts(ids: number[]): Promise<void> {
    if (ids.length) await this.db.deleteFrom('posts').where('id', 'in', ids).execute();
  }
}

/** A small seeded PRNG (mulberry32), so every randomized walk can be replayed from its seed. */
export function prng(seed: number): { next(): number; int(maxExclusive: number): number; pick<T>(items: T[]): T } {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (maxExclusive: number) => Math.floor(next() * maxExclusive);
  return { next, int, pick: (items) => items[int(items.length)]! };
}
