/** graphql-ws clients for tests, and a subscription recorder that can wait for what it received. */
import { createClient, type Client } from 'graphql-ws';
import type { Test } from 'tap';
import WebSocket from 'ws';

export function wsUrl(baseUrl: string): string {
  return `${baseUrl.replace(/^http/, 'ws')}/graphql`;
}

export function wsClient(t: Test, baseUrl: string, token?: string): Client {
  const client = createClient({
    url: wsUrl(baseUrl),
    webSocketImpl: WebSocket,
    retryAttempts: 0,
    lazy: true,
    ...(token ? { connectionParams: { authorization: `Bearer ${token}` } } : {}),
  });
  t.teardown(() => client.dispose());
  return client;
}

interface Recording<T> {
  results: { data?: T; errors?: any[] }[];
  completed: Promise<void>;
  /** Resolves once `predicate` holds for the results (checked on every new result), or rejects after `ms`. */
  until(predicate: (results: Recording<T>['results']) => boolean, ms?: number): Promise<void>;
  stop(): void;
}

export function record<T = any>(client: Client, query: string, variables?: Record<string, unknown>): Recording<T> {
  const results: Recording<T>['results'] = [];
  const waiters = new Set<() => void>();
  let complete!: () => void;
  const completed = new Promise<void>((resolve) => (complete = resolve));
  const notify = () => waiters.forEach((w) => w());
  const stop = client.subscribe<T>(
    { query, ...(variables ? { variables } : {}) },
    {
      next: (value) => {
        results.push(value as Recording<T>['results'][number]);
        notify();
      },
      error: (error) => {
        results.push({ errors: Array.isArray(error) ? error : [{ message: String((error as { reason?: string }).reason ?? error) }] });
        notify();
        complete();
      },
      complete: () => complete(),
    },
  );
  return {
    results,
    completed,
    stop,
    until: (predicate, ms = 5000) =>
      new Promise<void>((resolve, reject) => {
        if (predicate(results)) return resolve();
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`timed out; received ${JSON.stringify(results)}`));
        }, ms);
        const check = () => {
          if (!predicate(results)) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve();
        };
        waiters.add(check);
      }),
  };
}

/**
 * graphql-ws does not acknowledge a subscription, so to know it is live on the server we produce
 * probe events until one arrives. Returns the number of results the probes produced.
 */
export async function primed<T>(recording: Recording<T>, probe: () => Promise<unknown>): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    await probe();
    try {
      await recording.until((r) => r.length > 0, 200);
      await new Promise((r) => setTimeout(r, 100));
      return recording.results.length;
    } catch {
      // not subscribed yet
    }
  }
  throw new Error('subscription never became live');
}
