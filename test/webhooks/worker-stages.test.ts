/**
 * The delivery worker's pieces that need no database or receiver (src/webhooks/delivery/): the local
 * queue's bookkeeping (what is sent next, how much the next claim asks for, what goes back), what a
 * failed attempt writes, and the retry alarm. The worker itself is exercised end to end by the other
 * files of this folder.
 */
import t from 'tap';
import { failureOf } from '../../src/webhooks/delivery/failures.ts';
import { LocalQueue } from '../../src/webhooks/delivery/local-queue.ts';
import type { ClaimedDelivery } from '../../src/webhooks/delivery/queue.repository.ts';
import { RetryAlarm } from '../../src/webhooks/delivery/retry-alarm.ts';
import type { TransportResult } from '../../src/webhooks/delivery/transport.ts';

let next = 0;
function delivery(endpoint: string, attempt = 1): ClaimedDelivery {
  next++;
  return { id: `d${next}`, endpoint_id: endpoint, attempt } as ClaimedDelivery;
}

t.test('local queue', async (t) => {
  t.test('sends oldest first, at most the concurrency, and an endpoint at most its share', async (t) => {
    const queue = new LocalQueue({ concurrency: 4, perEndpoint: 2 });
    t.equal(queue.claimSize(), 8, 'an empty queue asks for two rounds of slots');
    const claimed = [delivery('a'), delivery('a'), delivery('a'), delivery('b'), delivery('c'), delivery('c')];
    queue.add(claimed, 10_000);
    t.same(queue.saturated().sort(), ['a', 'c'], 'endpoints holding their share are skipped by the next claim');
    const { ready, stale } = queue.takeReady(0, 1000);
    t.same(
      ready.map((d) => d.id),
      [claimed[0]!.id, claimed[1]!.id, claimed[3]!.id, claimed[4]!.id],
      'the third of endpoint a waits; c fills the last slot',
    );
    t.same(stale, []);
    t.same(queue.takeReady(0, 1000).ready, [], 'no slot is free');
    queue.answered(claimed[0]!);
    t.same(
      queue.takeReady(0, 1000).ready.map((d) => d.id),
      [claimed[2]!.id],
      'a freed slot of a goes to the next of a, oldest first',
    );
  });

  t.test('a delivery whose lease is too short to send goes back instead', async (t) => {
    const queue = new LocalQueue({ concurrency: 2, perEndpoint: 1 });
    const first = delivery('a');
    const second = delivery('b');
    queue.add([first], 1500);
    queue.add([second], 5000);
    const { ready, stale } = queue.takeReady(1000, 1000);
    t.same(
      ready.map((d) => d.id),
      [second.id],
    );
    t.same(stale, [first.id]);
    t.same(queue.saturated(), ['b'], 'the stale one is no longer held');
  });

  t.test('claims are sized to what is in hand, and it runs low at half a round waiting', async (t) => {
    const queue = new LocalQueue({ concurrency: 10, perEndpoint: 10 });
    queue.add(
      Array.from({ length: 16 }, () => delivery('a')),
      10_000,
    );
    t.equal(queue.claimSize(), 0, 'four free, more than half a round waiting: not worth a statement');
    queue.takeReady(0, 1000);
    t.notOk(queue.runningLow(), 'six waiting');
    queue.answered(delivery('a'));
    t.equal(queue.claimSize(), 5, 'half a round free is claimed');
    queue.takeReady(0, 1000);
    t.ok(queue.runningLow(), 'five waiting');
    queue.withdraw();
    t.notOk(queue.runningLow(), 'nothing waiting is not running low: the answers being written wake the worker');
  });

  t.test('withdraw takes one endpoint’s waiting deliveries, or all of them', async (t) => {
    const queue = new LocalQueue({ concurrency: 1, perEndpoint: 1 });
    const claimed = [delivery('a'), delivery('b'), delivery('a'), delivery('b')];
    queue.add(claimed, 10_000);
    queue.takeReady(0, 1000);
    t.same(queue.withdraw('a'), [claimed[2]!.id], 'the one in flight stays');
    t.same(queue.saturated().sort(), ['a', 'b'], 'a is still held by its delivery in flight');
    t.same(queue.withdraw(), [claimed[1]!.id, claimed[3]!.id]);
    t.same(queue.withdraw(), []);
  });
});

t.test('what a failed attempt writes', async (t) => {
  const policy = { webhookRetryDelaysMs: [1000], webhookDegradedAfter: 3, webhookDisabledAfter: 10 };
  const response: TransportResult = { kind: 'response', status: 500, body: 'x'.repeat(5000), durationMs: 12, redirects: 0 };
  const timeout: TransportResult = { kind: 'error', error: 'timeout', message: 'no answer', durationMs: 30 };

  const final = failureOf(delivery('a'), { ...response, status: 404 }, { result: 'final' }, policy);
  t.match(final, { state: 'failed', nextAttemptAt: null, responseCode: 404, error: null, degradedAfter: 3, disabledAfter: 10 });
  t.equal(final.responseBody!.length, 2048, 'the body is cut for the attempts log');

  const before = Date.now();
  const retry = failureOf(delivery('a', 2), timeout, { result: 'retry' }, policy);
  t.match(retry, { state: 'pending', responseCode: null, responseBody: null, error: 'timeout: no answer', responseTimeMs: 30 });
  const delay = retry.nextAttemptAt!.getTime() - before;
  t.ok(delay >= 900 && delay <= 1100 + (Date.now() - before), `the scheduled delay with its jitter (${delay} ms)`);

  const later = failureOf(delivery('a'), response, { result: 'retry', retryAfterMs: 60_000 }, policy);
  t.ok(later.nextAttemptAt!.getTime() - before >= 60_000, "the receiver's Retry-After replaces the delay");

  t.match(failureOf(delivery('a', 8), response, { result: 'retry' }, policy), { state: 'dead', nextAttemptAt: null });
});

t.test('the retry alarm rings once, at the earliest time it was set to', async (t) => {
  const rang: number[] = [];
  let rung!: () => void;
  const ringing = new Promise<void>((resolve) => (rung = resolve));
  const alarm = new RetryAlarm(() => {
    rang.push(Date.now());
    rung();
  });
  // The alarm's timer does not hold the process open (a worker's must not): this one does meanwhile.
  const keepAlive = setTimeout(() => {}, 10_000);
  t.teardown(() => clearTimeout(keepAlive));
  const start = Date.now();
  alarm.setBy(start + 60);
  alarm.setBy(start + 20);
  alarm.setBy(start + 40);
  await ringing;
  t.ok(rang[0]! >= start + 20, 'never before its time');
  await new Promise((resolve) => setTimeout(resolve, 100));
  t.equal(rang.length, 1, 'the later times set did not ring again');
  alarm.setBy(Date.now() + 10_000);
  alarm.cancel();
});
