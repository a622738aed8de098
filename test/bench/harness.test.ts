// test-suite: once (the harness's own arithmetic and its stub against seeded rows; no engine-specific SQL)
/**
 * The benchmark harness's own logic (scripts/bench/): the balanced order of the rounds, the ratio
 * statistics, and the stubbed repository, which must answer as the seeded database does or the REST
 * stack-cost case would compare servers on data no database ever returns; likewise the auth section's
 * in-memory credential store.
 */
import t from 'tap';
import { findProductById, pageProducts } from '../../src/catalog/products.repository.ts';
import { withRun } from '../../scripts/bench/report.ts';
import { SessionsService } from '../../src/identity/sign-in/sessions.service.ts';
import {
  AUTH_USERS,
  AUTH_VIEWER,
  PRODUCT_ID,
  authSessionToken,
  authUserId,
  productId,
  seedAuth,
  seedProducts,
} from '../../scripts/bench/fixtures.ts';
import { memoryCredentialStore } from '../../scripts/bench/memory-credentials.ts';
import { balancedOrders, bootstrapMedian, median, perRoundRatios, quantile, seededRandom } from '../../scripts/bench/stats.ts';
import { stubDatabase } from '../../scripts/bench/stub-database.ts';
import { openTestDatabase } from '../helpers/database.ts';

t.test('every block of rounds puts each server in every position and right after every other', async (t) => {
  for (let n = 2; n <= 6; n++) {
    const block = n % 2 ? 2 * n : n;
    const orders = balancedOrders(n, 24, seededRandom(n));
    t.equal(orders.length, Math.ceil(24 / block) * block, `n=${n}: 24 rounds rounded up to whole blocks`);
    for (let start = 0; start < orders.length; start += block) {
      const rows = orders.slice(start, start + block);
      for (const row of rows) t.same([...row].sort(), [...Array(n).keys()], `n=${n}: each round runs every server once`);
      for (let position = 0; position < n; position++) {
        const here = rows.map((row) => row[position]!);
        for (let server = 0; server < n; server++) {
          t.equal(here.filter((s) => s === server).length, block / n, `n=${n}: server ${server} equally often in position ${position}`);
        }
      }
      // A fixed cycle would put each server after one other only.
      const follows = rows.flatMap((o) => o.slice(1).map((server, i) => `${o[i]}>${server}`));
      t.equal(new Set(follows).size, n * (n - 1), `n=${n}: every server runs right after every other`);
      t.equal(follows.length, (block / n) * n * (n - 1), `n=${n}: and equally often`);
    }
  }
  t.not(balancedOrders(4, 8, seededRandom(1)).slice(0, 4).join(), balancedOrders(4, 8, seededRandom(1)).slice(4).join(), 'blocks differ');
  t.same(balancedOrders(3, 6, seededRandom(7)), balancedOrders(3, 6, seededRandom(7)), 'the seed fixes the orders');
});

t.test('the ratio is the median of per-round ratios, with a bootstrap interval around it', async (t) => {
  t.equal(median([3, 1, 2]), 2);
  t.equal(median([4, 1, 2, 3]), 2.5);
  t.equal(quantile([0, 10], 0.25), 2.5);
  t.same(perRoundRatios([10, 30], [5, 10]), [2, 3]);
  t.throws(() => perRoundRatios([1], [1, 2]), /rounds differ/);

  const ratios = [0.9, 1.0, 1.1, 1.05, 0.95, 1.2, 0.8, 1.0, 1.02, 0.98, 1.3, 0.7];
  const estimate = bootstrapMedian(ratios, seededRandom(42));
  t.equal(estimate.median, median(ratios));
  t.ok(estimate.low <= estimate.median && estimate.median <= estimate.high, 'the interval holds the median');
  t.ok(estimate.low >= 0.7 && estimate.high <= 1.3, 'within the observed ratios');
  t.ok(estimate.high - estimate.low > 0, 'spread rounds give a non-empty interval');
  t.same(bootstrapMedian(ratios, seededRandom(42)), estimate, 'the seed fixes the interval');
  t.same(bootstrapMedian([1.5, 1.5, 1.5], seededRandom(1)), { median: 1.5, low: 1.5, high: 1.5 });
});

t.test('the stubbed repository answers as the seeded database does', async (t) => {
  const database = await openTestDatabase(t);
  await seedProducts(database.db);
  const stub = stubDatabase();

  for (const id of [PRODUCT_ID, productId(1), productId(1000)]) {
    t.same(await findProductById(stub, id), await findProductById(database.db, id), `product ${id}`);
  }
  t.equal(await findProductById(stub, productId(1001)), undefined);
  for (const page of [0, 3, 49]) {
    const query = { orders: [{ field: 'createdAt' as const, direction: 'desc' as const }], page, size: 20 };
    t.same(await pageProducts(stub, query), await pageProducts(database.db, query), `page ${page}`);
  }
});

t.test('a run goes on top of docs/benchmarks.md and replaces the earlier run of the same sections', async (t) => {
  const doc = '# Benchmarks\n\n## Hand-written figures\n\ntext\n';
  const first = withRun(doc, ['scim'], '# Benchmarks\n\nat commit aaa\n\n## SCIM filters\n\np95 1 ms\n');
  t.equal(
    first,
    '# Benchmarks\n\n<!-- run: scim -->\n## Run: scim\n\nat commit aaa\n\n### SCIM filters\n\np95 1 ms\n<!-- end of run: scim -->\n\n## Hand-written figures\n\ntext\n',
  );
  const both = withRun(first, ['products', 'graphql'], '# Benchmarks\n\nat commit bbb\n');
  t.match(
    both,
    /^# Benchmarks\n\n<!-- run: graphql,products -->\n## Run: products, graphql\n\nat commit bbb\n<!-- end of run: graphql,products -->\n\n<!-- run: scim -->[\s\S]*aaa[\s\S]*Hand-written/,
    'the newest on top, the earlier run of other sections below it',
  );
  const again = withRun(both, ['scim'], '# Benchmarks\n\nat commit ccc\n');
  t.notMatch(again, /aaa/, 'the earlier run of the same sections is gone');
  t.match(
    again,
    /^# Benchmarks\n\n<!-- run: scim -->\n## Run: scim\n\nat commit ccc\n<!-- end of run: scim -->\n\n<!-- run: graphql,products -->[\s\S]*bbb[\s\S]*Hand-written figures\n\ntext\n$/,
  );
});

t.test("the auth section's in-memory credential store answers as the database does", async (t) => {
  const { db } = await openTestDatabase(t);
  await seedAuth(db);
  // Some of every kind of answer: a deactivated user, a deleted one, a revoked session.
  await db.updateTable('users').set({ active: false }).where('id', '=', authUserId(2)).execute();
  await db.deleteFrom('users').where('id', '=', authUserId(3)).execute();
  await db.updateTable('sessions').set({ revoked_at: new Date() }).where('user_id', '=', authUserId(4)).execute();
  const sessions = new SessionsService(db, 3600);
  const memory = await memoryCredentialStore(db);

  for (const g of [1, 2, 3, 4, AUTH_VIEWER, AUTH_USERS, AUTH_USERS + 1]) {
    const token = authSessionToken(g);
    t.same(await memory.sessionForToken(token), (await sessions.readSession(token))?.value ?? null, `session of user ${g}`);
    t.same(await memory.subjectStatus(authUserId(g)), (await sessions.readSubject(authUserId(g))).value, `subject ${authUserId(g)}`);
  }
  t.match(await memory.sessionForToken(authSessionToken(AUTH_VIEWER)), { userId: authUserId(AUTH_VIEWER) }, 'a live session is found');
  t.same(await memory.subjectStatus('operator'), { kind: 'unknown' });
});
