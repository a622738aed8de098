// test-suite: once (the feed's cursor rules over SQL that is the same on both engines)
/**
 * GET /feed is bidirectional: from any page, walking `before` (older) and then `after` (newer) back
 * gives the same pages in mirror order, and the flags and cursors tell exactly where the ends are.
 */
import t from 'tap';
import { sharedServer } from '../helpers/server.ts';
import { newestFirst, ORIGIN_MICROS, Seed } from './seed.ts';

interface FeedBody {
  data: { id: number }[];
  cursors: { before: string | null; after: string | null };
  has_next: boolean;
  has_prev: boolean;
}

t.test('feed walks', async (t) => {
  const server = await sharedServer();
  const { api } = server;
  const seed = new Seed(server.database.db);
  await seed.users('alice');
  // 47 posts: pages of 5 end in a partial page; pairs share a created_at to exercise the tiebreaker.
  const posts = await seed.posts(
    Array.from({ length: 47 }, (_, i) => ({ author: 'alice', createdAtMicros: ORIGIN_MICROS + BigInt(i >> 1) * 1_000_000n })),
  );
  const all = [...posts].sort(newestFirst).map((p) => p.id);
  const feed = async (query: string): Promise<FeedBody> => (await api.get(`/feed?limit=5${query}`, { expect: 200 })).body;
  const ids = (page: FeedBody) => page.data.map((p) => p.id);

  t.test('the first page is the newest: nothing newer, so no after-cursor', async (t) => {
    const top = await feed('');
    t.same(ids(top), all.slice(0, 5));
    t.equal(top.has_prev, false);
    t.equal(top.cursors.after, null);
    t.equal(top.has_next, true);
    t.type(top.cursors.before, 'string');
  });

  t.test('from the middle, backwards to the end and forwards again: the mirror sequence', async (t) => {
    let page = await feed('');
    for (let i = 0; i < 4; i++) page = await feed(`&before=${page.cursors.before}`);
    const middle = page;
    t.same(ids(middle), all.slice(20, 25), 'the middle page');
    t.equal(middle.has_prev, true);
    t.equal(middle.has_next, true);

    const older: FeedBody[] = [middle];
    while (older.at(-1)!.has_next) older.push(await feed(`&before=${older.at(-1)!.cursors.before}`));
    t.same(older.map(ids).flat(), all.slice(20), 'backwards (older) from the middle to the oldest post');
    t.equal(older.at(-1)!.cursors.before, null, 'no before-cursor on the oldest page');

    const back: FeedBody[] = [older.at(-1)!];
    while (back.length < older.length) back.push(await feed(`&after=${back.at(-1)!.cursors.after}`));
    t.same(back.map(ids), [...older].reverse().map(ids), 'forwards (newer) back to the middle: the same pages, mirrored');

    const newer: FeedBody[] = [middle];
    while (newer.at(-1)!.has_prev) newer.push(await feed(`&after=${newer.at(-1)!.cursors.after}`));
    t.same([...newer].reverse().map(ids).flat(), all.slice(0, 25), 'forwards (newer) from the middle reaches the newest post');
    t.equal(newer.at(-1)!.cursors.after, null, 'no after-cursor on the newest page');
    const down: FeedBody[] = [newer.at(-1)!];
    while (down.length < newer.length) down.push(await feed(`&before=${down.at(-1)!.cursors.before}`));
    t.same(down.map(ids), [...newer].reverse().map(ids), 'and backwards again to the middle: mirrored');
  });

  t.test('an empty page still lets the walk turn back', async (t) => {
    let page = await feed('');
    while (page.data.at(-1)!.id !== all[44]) page = await feed(`&before=${page.cursors.before}`);
    t.equal(page.has_next, true);
    await seed.deletePosts([all[45]!, all[46]!]);
    const empty = await feed(`&before=${page.cursors.before}`);
    t.same(empty.data, []);
    t.equal(empty.has_next, false);
    t.equal(empty.cursors.before, null);
    t.equal(empty.has_prev, true, 'newer posts exist beyond the (empty) page');
    // The empty page's edge is the cursor's own position (all[44]): after returns the posts
    // immediately newer than that post.
    t.same(ids(await feed(`&after=${empty.cursors.after}`)), all.slice(39, 44), 'after from the empty page turns back from its edge');
  });
});
