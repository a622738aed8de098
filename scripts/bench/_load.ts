/**
 * One worker thread that fires autocannon measurements on request, so the load generator never
 * shares the servers' thread, and consecutive measurements cost no thread start-up (autocannon's
 * own `workers` option starts one per measurement, tens of milliseconds that short, frequently
 * alternated measurements cannot afford).
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { Options } from 'autocannon';

const require = createRequire(import.meta.url);

/**
 * The worker's code, plain JavaScript: Node 20 does not apply tsx's loader inside worker threads.
 * It runs one autocannon measurement per message, in its own thread.
 */
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const autocannon = require(workerData.autocannon);
// Inside a worker thread autocannon hands back its raw result (its own workers report to a main
// thread, which aggregates them); this is that aggregation.
const aggregateResult = require(workerData.aggregate);
parentPort.on('message', (options) => {
  autocannon(options).then(
    (raw) => {
      const r = aggregateResult(raw, options);
      parentPort.postMessage({ requests: r.requests.total, seconds: r.duration, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors });
    },
    (error) => parentPort.postMessage({ failure: String(error) }),
  );
});
`;

export interface Measurement {
  /** Requests completed per second of the measurement. */
  rps: number;
  /** 99th percentile latency, ms. */
  p99: number;
}

interface Reply {
  requests: number;
  seconds: number;
  p99: number;
  non2xx: number;
  errors: number;
  failure?: string;
}

export class LoadGenerator {
  private readonly worker = new Worker(WORKER, {
    eval: true,
    workerData: { autocannon: require.resolve('autocannon'), aggregate: require.resolve('autocannon/lib/aggregateResult.js') },
  });

  measure(options: Options): Promise<Measurement> {
    return new Promise((resolve, reject) => {
      this.worker.once('message', (reply: Reply) => {
        if (reply.failure) return reject(new Error(`${options.url}: ${reply.failure}`));
        if (reply.non2xx > 0 || reply.errors > 0)
          return reject(new Error(`${options.url}: ${reply.non2xx} non-2xx, ${reply.errors} errors`));
        resolve({ rps: reply.requests / reply.seconds, p99: reply.p99 });
      });
      this.worker.postMessage(options);
    });
  }

  close(): Promise<number> {
    return this.worker.terminate();
  }
}
