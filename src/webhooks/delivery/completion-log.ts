/**
 * Successful attempts are written in batches, not one statement each: a delivery's worker slot is
 * free as soon as its response arrives, and its success waits here (at most `flushMs`, or until
 * `maxBatch` have gathered) to be written with the others in one statement. Until then the delivery
 * is still leased in the database, so a worker that dies before the write loses nothing: the lease
 * runs out and the delivery is sent again (at least once, as always). The endpoints' health
 * counters (attempts, successes, last success) are summed in memory from what each batch actually
 * recorded, not from what was answered: a success whose write failed, or whose delivery another
 * claim took over meanwhile, is counted by the attempt that does get recorded, so none counts twice.
 * They are written about once a second. `flush` writes what is waiting now: a failure is recorded
 * only after the successes before it, so an endpoint's consecutive-failure count follows the order
 * the answers came in.
 */
import type { Executor } from '../../db/transaction.ts';
import { addEndpointCounters, recordSuccesses, type EndpointCounters, type Success } from './completions.repository.ts';

interface CompletionLogOptions {
  db: Executor;
  /** The worker whose claims these successes answer: only deliveries still leased to it are recorded. */
  workerId: string;
  flushMs: number;
  maxBatch: number;
  countersMs: number;
  log: { error(details: object, message: string): void };
  /**
   * A batch was written (the next delivery of a resource, or an endpoint's held ones, may be due), or
   * the counters were (a claim meanwhile skipped the endpoints they held locked).
   */
  onWritten: () => void;
}

interface CompletionLog {
  success(success: Success): void;
  /** Writes the successes waiting now (and waits for a write under way). */
  flush(): Promise<void>;
  /** Writes everything waiting, counters included, and stops the timers. */
  close(): Promise<void>;
}

export function createCompletionLog(options: CompletionLogOptions): CompletionLog {
  const { db, log } = options;
  let waiting: Success[] = [];
  let flushTimer: NodeJS.Timeout | undefined;
  let writing: Promise<void> | undefined;
  const counters = new Map<string, EndpointCounters>();
  let countersTimer: NodeJS.Timeout | undefined;

  async function flush(): Promise<void> {
    clearTimeout(flushTimer);
    flushTimer = undefined;
    while (writing) await writing;
    if (waiting.length === 0) return;
    const batch = waiting;
    waiting = [];
    writing = recordSuccesses(db, options.workerId, batch).then(
      ({ counters: written }) => {
        for (const c of written) count(c.endpointId, c.successes, c.lastSuccessAt);
        options.onWritten();
      },
      (error: unknown) =>
        // Still leased: each is sent again when its lease runs out.
        log.error({ err: error, deliveries: batch.length }, 'webhook successes could not be recorded; they will be sent again'),
    );
    try {
      await writing;
    } finally {
      writing = undefined;
    }
  }

  async function writeCounters(): Promise<void> {
    countersTimer = undefined;
    if (counters.size === 0) return;
    const batch = [...counters.values()];
    counters.clear();
    try {
      await addEndpointCounters(db, batch);
      // A claim meanwhile skipped the endpoints this held locked (SKIP LOCKED): look again now.
      options.onWritten();
    } catch (error) {
      log.error({ err: error }, 'webhook endpoint counters could not be written; kept for the next try');
      for (const c of batch) count(c.endpointId, c.successes, c.lastSuccessAt);
    }
  }

  function count(endpointId: string, successes: number, at: Date): void {
    const c = counters.get(endpointId);
    if (c) {
      c.successes += successes;
      if (at > c.lastSuccessAt) c.lastSuccessAt = at;
    } else counters.set(endpointId, { endpointId, successes, lastSuccessAt: at });
    if (!countersTimer) {
      countersTimer = setTimeout(() => void writeCounters(), options.countersMs);
      countersTimer.unref();
    }
  }

  return {
    success(success) {
      waiting.push(success);
      if (waiting.length >= options.maxBatch) void flush();
      else if (!flushTimer) {
        flushTimer = setTimeout(() => void flush(), options.flushMs);
        flushTimer.unref();
      }
    },
    flush,
    async close() {
      await flush();
      clearTimeout(countersTimer);
      await writeCounters();
    },
  };
}
