// test-suite: once (the listing policy is one SQL predicate, the same text on both engines)
/**
 * Which posts are listed: anonymous callers see PUBLISHED; a signed-in author also sees their own
 * DRAFTs (never another author's); ARCHIVED is never listed. Holds in every form and in the totals.
 */
import t from 'tap';
import { sharedServer } from '../helpers/server.ts';
import { walk } from './walk.ts';
import { newestFirst, ORIGIN_MICROS, Seed, type PostSpec, type Status } from './seed.ts';

t.test('visibility per caller', async (t) => {
  const server = await sharedServer();
  const { api } = server;
  const seed = new Seed(server.database.db);
  await seed.users('alice', 'bob');
  const statuses: Status[] = ['PUBLISHED', 'DRAFT', 'PUBLISHED', 'ARCHIVED', 'DRAFT'];
  const specs: PostSpec[] = Array.from({ length: 60 }, (_, i) => ({
    author: i % 2 ? 'alice' : 'bob',
    status: statuses[i % statuses.length]!,
    createdAtMicros: ORIGIN_MICROS + BigInt(i) * 1_000_000n,
  }));
  const posts = (await seed.posts(specs)).sort(newestFirst);
  const anonymous = posts.filter((p) => p.status === 'PUBLISHED').map((p) => p.id);
  const forAlice = posts.filter((p) => p.status === 'PUBLISHED' || (p.status === 'DRAFT' && p.authorId === 'alice')).map((p) => p.id);
  t.ok(forAlice.length > anonymous.length && anonymous.length > 0, 'the seed has drafts of both authors');

  const alice = await server.token('alice');
  for (const form of ['standard', 'cursor', 'keyset', 'feed', 'offset'] as const) {
    t.same(await walk(form, { api, limit: 4 }), anonymous, `anonymous, ${form}: PUBLISHED only`);
    t.same(await walk(form, { api, limit: 4, token: alice }), forAlice, `alice, ${form}: PUBLISHED and her own DRAFTs`);
  }
  t.equal((await api.get('/posts?offset=0', { expect: 200 })).body.pagination.total, anonymous.length);
  t.equal((await api.get('/posts?offset=0', { token: alice, expect: 200 })).body.pagination.total, forAlice.length);

  t.test('a present but invalid token is a 401, not an anonymous list', async (t) => {
    const r = await api.get('/posts', { token: 'not-a-jwt', expect: 401 });
    t.match(r.body, { type: '/problems/unauthorized' });
    await api.get('/feed', { token: 'not-a-jwt', expect: 401 });
  });
});
