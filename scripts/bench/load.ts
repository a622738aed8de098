/** The harness's side of the load generator process (load-worker.ts). */
import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import { spawnNode, stopChild, tsx } from './procs.ts';

export interface LoadRequest {
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
  connections: number;
  seconds: number;
}

export interface Measurement {
  requests: number;
  seconds: number;
  rps: number;
  /** Latency percentiles, ms. */
  p50: number;
  p95: number;
  p99: number;
}

export type LoadReply = (Measurement & { non2xx: number; errors: number; failure?: undefined }) | { failure: string };

export class LoadGenerator {
  private constructor(private readonly child: ChildProcess) {}

  static async start(cpu: string | null): Promise<LoadGenerator> {
    const child = spawnNode(tsx(path.join(import.meta.dirname, 'load-worker.ts')), { cpu, ipc: true, stdout: 'inherit' });
    await new Promise<void>((resolve, reject) => {
      child.once('message', () => resolve());
      child.once('exit', (code) => reject(new Error(`load generator exited with code ${code}`)));
    });
    return new LoadGenerator(child);
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  measure(request: LoadRequest): Promise<Measurement> {
    return new Promise((resolve, reject) => {
      this.child.once('message', (reply: LoadReply) => {
        if (reply.failure !== undefined) return reject(new Error(`${request.url}: ${reply.failure}`));
        if (reply.non2xx > 0 || reply.errors > 0)
          return reject(new Error(`${request.method} ${request.url}: ${reply.non2xx} non-2xx responses, ${reply.errors} errors`));
        const { non2xx: _n, errors: _e, ...measurement } = reply;
        resolve(measurement);
      });
      this.child.send(request);
    });
  }

  close(): Promise<void> {
    return stopChild(this.child);
  }
}
