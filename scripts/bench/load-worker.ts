/**
 * The load generator's own process (started by load.ts, pinned to its own core): runs one
 * autocannon measurement per IPC message and answers with throughput and latency percentiles.
 * autocannon's result has no p95, so the latency of every response is kept (a few ten thousand
 * numbers a round) and the percentiles are taken here.
 */
import autocannon from 'autocannon';
import type { LoadReply, LoadRequest } from './load.ts';
import { quantile } from './stats.ts';

function measure(request: LoadRequest): Promise<LoadReply> {
  return new Promise((resolve) => {
    const latencies: number[] = [];
    const instance = autocannon(
      {
        url: request.url,
        method: request.method,
        headers: request.headers,
        body: request.body,
        connections: request.connections,
        duration: request.seconds,
        // autocannon notices the end of a run only when it takes a sample (every second by default),
        // so a 1 s round could last 2 s; sampling every 50 ms ends it on time.
        sampleInt: 50,
      },
      (error, result) => {
        if (error) return resolve({ failure: String(error) });
        resolve({
          requests: result.requests.total,
          seconds: result.duration,
          rps: result.requests.total / result.duration,
          p50: quantile(latencies, 0.5),
          p95: quantile(latencies, 0.95),
          p99: quantile(latencies, 0.99),
          non2xx: result.non2xx,
          errors: result.errors + result.timeouts,
        });
      },
    );
    instance.on('response', (_client, _status, _bytes, responseTime) => latencies.push(responseTime));
  });
}

process.on('message', (message: LoadRequest) => {
  void measure(message).then((reply) => process.send!(reply));
});
process.send!({ ready: true });
