/** The slice of autocannon's programmatic API the benchmarks use (the package ships no types). */
declare module 'autocannon' {
  interface Options {
    url: string;
    connections?: number;
    duration?: number;
    method?: 'GET' | 'POST';
    headers?: Record<string, string>;
    body?: string;
    /** Worker threads firing the requests, so the load generator does not share the servers' thread. */
    workers?: number;
  }
  interface Result {
    requests: { average: number; total: number };
    /** Seconds the measurement ran. */
    duration: number;
    latency: { p99: number };
    non2xx: number;
    errors: number;
  }
  export default function autocannon(options: Options): Promise<Result>;
}
