// test-suite: once (page walks over the repositories' SQL: the same rows in the same order on either engine)
/**
 * Rule 3 as a property: walking every page of the standard (`cursor`), cursor (standard first page,
 * then `after`), keyset and feed forms while posts are inserted and deleted between page requests never yields an item
 * twice, yields every post that existed for the whole walk exactly once, and stays newest first.
 * Randomness comes from a seeded PRNG, so a failure names the seed that replays it.
 *
 * Rule 4 as a contrast: the offset form under the same churn repeats and skips, shown both by the
 * seeded walks and by a deterministic scenario.
 */
import t from 'tap';
import { sharedServer, type TestServer } from '../helpers/server.ts';
import { walk, type WalkForm } from './walk.ts';
import { newestFirst, ORIGIN_MICROS, prng, Seed, type SeededPost, type Status } from './seed.ts';

const SEEDS = [1, 7, 42, 1234, 99_991];
const INITIAL = 60;

interface Churned {
  /** Posts visible to the walker at the start and never deleted: each must appear exactly once. */
  stable: Set<number>;
  /** Every post the walker may legitimately see, with its exact created_at (for the order check). */
  visible: Map<number, SeededPost>;
  between: (page: number) => Promise<void>;
}

/**
 * Seeds INITIAL posts and returns the churn to run between pages. Times are drawn from 40 whole
 * seconds, so created_at ties are common and the id tiebreaker is exercised; inserts land anywhere:
 * newer than everything, in the part already walked and in the part still ahead.
 */
async function churnedList(server: TestServer, seedValue: number, viewer: string | null): Promise<Churned> {
  const random = prng(seedValue);
  const seed = new Seed(server.database.db);
  await server.database.db.deleteFrom('posts').execute();
  await seed.users('alice', 'bob');
  const status = (): Status => (random.next() < 0.75 ? 'PUBLISHED' : random.pick(['DRAFT', 'ARCHIVED'] as Status[]));
  const spec = (spanSeconds: number) => ({
    author: random.pick(['alice', 'bob']),
    status: status(),
    createdAtMicros: ORIGIN_MICROS + BigInt(random.int(spanSeconds)) * 1_000_000n,
  });
  const isVisible = (p: SeededPost) => p.status === 'PUBLISHED' || (p.status === 'DRAFT' && p.authorId === viewer);

  const initial = await seed.posts(Array.from({ length: INITIAL }, () => spec(40)));
  const stable = new Set(initial.filter(isVisible).map((p) => p.id));
  const visible = new Map(initial.filter(isVisible).map((p) => [p.id, p]));
  const alive = initial.map((p) => p.id);

  const between = async () => {
    for (let op = 1 + random.int(4); op > 0; op--) {
      if (random.next() < 0.5 && alive.length) {
        const [victim] = alive.splice(random.int(alive.length), 1);
        await seed.deletePosts([victim!]);
        stable.delete(victim!);
      } else {
        // Up to 45 s: some inserts are newer than every initial post.
        const [post] = await seed.posts([spec(45)]);
        alive.push(post!.id);
        if (isVisible(post!)) visible.set(post!.id, post!);
      }
    }
  };
  return { stable, visible, between };
}

t.test('standard, cursor, keyset and feed walks are stable under concurrent inserts and deletes', async (t) => {
  const server = await sharedServer();
  const alice = await server.token('alice');
  for (const seedValue of SEEDS) {
    for (const form of ['standard', 'cursor', 'keyset', 'feed'] as WalkForm[]) {
      // Alternate callers: signed-in walks read the merged PUBLISHED + own-DRAFT branches.
      const viewer = seedValue % 2 ? 'alice' : null;
      const limit = 3 + prng(seedValue + form.length).int(7);
      const { stable, visible, between } = await churnedList(server, seedValue, viewer);
      const ids = await walk(form, { api: server.api, limit, token: viewer ? alice : undefined, between, maxPages: 500 });
      const label = `seed ${seedValue}, ${form}, limit ${limit}, ${viewer ?? 'anonymous'}`;

      const counts = new Map<number, number>();
      for (const id of ids) counts.set(id, (counts.get(id) ?? 0) + 1);
      t.same(
        [...counts].filter(([, n]) => n > 1),
        [],
        `${label}: no item appears twice`,
      );
      t.same(
        [...stable].filter((id) => !counts.has(id)),
        [],
        `${label}: every post that existed for the whole walk appears`,
      );
      t.same(
        ids.filter((id) => !visible.has(id)),
        [],
        `${label}: only posts visible to the caller`,
      );
      const delivered = ids.map((id) => visible.get(id)!).filter(Boolean);
      t.same(delivered, [...delivered].sort(newestFirst), `${label}: newest first by created_at, then id`);
      t.ok(stable.size > 20, `${label}: the walk covered ${stable.size} stable posts`);
    }
  }
});

t.test('the offset form under the same churn repeats or skips (rule 4)', async (t) => {
  const server = await sharedServer();
  let anomalies = 0;
  for (const seedValue of SEEDS) {
    const { stable, between } = await churnedList(server, seedValue, null);
    const ids = await walk('offset', { api: server.api, limit: 5, between, maxPages: 500 });
    const repeats = ids.length - new Set(ids).size;
    const skips = [...stable].filter((id) => !ids.includes(id)).length;
    anomalies += repeats + skips;
  }
  t.ok(anomalies > 0, `seeded offset walks repeated or skipped ${anomalies} posts in total`);
});

t.test('offset pages repeat an item after an insert and skip one after a delete; cursor pages do not (deterministic)', async (t) => {
  const server = await sharedServer();
  const { api } = server;
  const seed = new Seed(server.database.db);
  await seed.users('alice');
  const p = (
    await seed.posts(Array.from({ length: 10 }, (_, i) => ({ author: 'alice', createdAtMicros: ORIGIN_MICROS + BigInt(i) * 1_000_000n })))
  )
    .sort(newestFirst)
    .map((post) => post.id);
  const ids = (body: { data: { id: number }[] }) => body.data.map((post) => post.id);
  const newer = (hours: number) => seed.posts([{ author: 'alice', createdAtMicros: ORIGIN_MICROS + BigInt(hours) * 3_600_000_000n }]);

  t.test('offset: an insert above the window repeats an item', async (t) => {
    t.same(ids((await api.get('/posts?offset=0&limit=3', { expect: 200 })).body), [p[0], p[1], p[2]]);
    const [inserted] = await newer(1);
    t.same(ids((await api.get('/posts?offset=3&limit=3', { expect: 200 })).body), [p[2], p[3], p[4]], `${p[2]} is served twice`);
    await seed.deletePosts([inserted!.id]);
  });

  t.test('offset: a delete above the window skips an item', async (t) => {
    t.same(ids((await api.get('/posts?offset=0&limit=3', { expect: 200 })).body), [p[0], p[1], p[2]]);
    await seed.deletePosts([p[0]!]);
    t.same(ids((await api.get('/posts?offset=3&limit=3', { expect: 200 })).body), [p[4], p[5], p[6]], `${p[3]} is never served`);
  });

  t.test('cursor: the same insert and delete neither repeat nor skip', async (t) => {
    const first = (await api.get('/posts?limit=3', { expect: 200 })).body;
    t.same(ids(first), [p[1], p[2], p[3]]);
    await newer(2);
    const second = (await api.get(`/posts?limit=3&after=${first.pagination.cursor}`, { expect: 200 })).body;
    t.same(ids(second), [p[4], p[5], p[6]], 'continues after the last item despite the insert');
    await seed.deletePosts([p[1]!]);
    const third = (await api.get(`/posts?limit=3&after=${second.cursor}`, { expect: 200 })).body;
    t.same(ids(third), [p[7], p[8], p[9]], 'continues after the last item despite the delete');
    t.equal(third.has_next, false);
  });
});
