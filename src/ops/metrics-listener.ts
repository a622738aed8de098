/**
 * METRICS_PORT: a listener of its own serving /metrics alone, without credentials, for a scraper on
 * an internal network; everything else it answers 404. Kept apart from the application so that no
 * route, hook or credential of the public port applies to it. The server (src/server.ts) and the
 * separate webhook worker (src/worker.ts) each start one on their own METRICS_PORT.
 */
import http from 'node:http';
import { once } from 'node:events';
import type { ProcessMetrics } from './metrics.ts';

export interface MetricsListener {
  port: number;
  close(): Promise<void>;
}

export async function startMetricsListener(metrics: ProcessMetrics, where: { port: number; host: string }): Promise<MetricsListener> {
  const server = http.createServer((request, response) => {
    if (request.method !== 'GET' || request.url?.split('?')[0] !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found\n');
      return;
    }
    metrics.registry.metrics().then(
      (text) => response.writeHead(200, { 'content-type': metrics.registry.contentType }).end(text),
      () => response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('metrics unavailable\n'),
    );
  });
  server.listen(where.port, where.host);
  await once(server, 'listening');
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : where.port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
