/**
 * The receiving side of content events: one LISTEN per server instance (PGlite's in-process
 * listener, or one dedicated connection on PostgreSQL, outside the pool so that ending the pool
 * never waits on it), fanned out in memory to every open
 * subscription as an async iterator. Closed on application shutdown so nothing keeps the process
 * or the pool alive.
 */
import pg from 'pg';
import type { DatabaseHandle } from '../db/database.ts';
import { CONTENT_EVENTS_CHANNEL, parseContentEvent, type ContentEvent } from './content.events.ts';

type Handler = (event: ContentEvent) => void;

/** A slow subscriber may fall this far behind before its oldest undelivered events are dropped. */
const MAX_BUFFERED_EVENTS = 1000;
const RECONNECT_DELAY_MS = 1000;

export interface ListenerLog {
  error(details: object, message: string): void;
}

export class ContentEventListener {
  /** Each open subscription's handler, with how to end it when the listener closes. */
  private readonly subscriptions = new Map<Handler, () => Promise<unknown>>();
  private stop: () => Promise<void> = async () => {};
  private closed = false;

  private constructor(
    private readonly database: DatabaseHandle,
    private readonly log: ListenerLog,
  ) {}

  static async open(database: DatabaseHandle, log: ListenerLog): Promise<ContentEventListener> {
    const listener = new ContentEventListener(database, log);
    await listener.listen();
    return listener;
  }

  private dispatch = (payload: string | undefined): void => {
    const event = payload ? parseContentEvent(payload) : null;
    if (!event) return;
    for (const handler of this.subscriptions.keys()) handler(event);
  };

  private async listen(): Promise<void> {
    if (this.database.pglite) {
      this.stop = await this.database.pglite.listen(CONTENT_EVENTS_CHANNEL, this.dispatch);
      return;
    }
    if (this.database.pool) {
      await this.listenOnPool(this.database.pool);
      return;
    }
    throw new Error('the database handle offers no LISTEN/NOTIFY channel');
  }

  private async listenOnPool(pool: pg.Pool): Promise<void> {
    const client = new pg.Client(pool.options);
    await client.connect();
    let released = false;
    const release = async () => {
      if (released) return;
      released = true;
      client.removeAllListeners('notification');
      await client.end().catch(() => {});
    };
    client.on('notification', (message) => this.dispatch(message.payload));
    // A dropped LISTEN connection would silently end every subscription: take a fresh one.
    client.on('error', (error) => {
      this.log.error({ err: error }, 'content event listener lost its connection; reconnecting');
      void release();
      this.reconnect(pool);
    });
    await client.query(`LISTEN ${CONTENT_EVENTS_CHANNEL}`);
    this.stop = async () => {
      if (released) return;
      await client.query(`UNLISTEN ${CONTENT_EVENTS_CHANNEL}`).catch(() => {});
      await release();
    };
  }

  private reconnect(pool: pg.Pool): void {
    if (this.closed) return;
    setTimeout(() => {
      if (this.closed) return;
      this.listenOnPool(pool).catch((error: unknown) => {
        this.log.error({ err: error }, 'content event listener cannot reconnect; retrying');
        this.reconnect(pool);
      });
    }, RECONNECT_DELAY_MS).unref();
  }

  /** Events accepted by `filter`, from now until the iterator is returned (the client unsubscribes). */
  subscribe<E extends ContentEvent>(filter: (event: ContentEvent) => event is E): AsyncIterableIterator<E> {
    const buffered: E[] = [];
    let waiting: ((result: IteratorResult<E>) => void) | null = null;
    let done = this.closed;
    const handler: Handler = (event) => {
      if (!filter(event)) return;
      if (waiting) {
        const resolve = waiting;
        waiting = null;
        resolve({ value: event, done: false });
        return;
      }
      buffered.push(event);
      if (buffered.length > MAX_BUFFERED_EVENTS) buffered.shift();
    };
    const finish = async (): Promise<IteratorResult<E>> => {
      done = true;
      this.subscriptions.delete(handler);
      buffered.length = 0;
      waiting?.({ value: undefined, done: true });
      waiting = null;
      return { value: undefined, done: true };
    };
    if (!done) this.subscriptions.set(handler, finish);
    const iterator: AsyncIterableIterator<E> = {
      next: () => {
        if (buffered.length) return Promise.resolve({ value: buffered.shift()!, done: false });
        if (done) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve) => (waiting = resolve));
      },
      return: finish,
      [Symbol.asyncIterator]: () => iterator,
    };
    return iterator;
  }

  /** Stops listening and ends every open subscription. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.subscriptions.values()].map((finish) => finish()));
    // The database may already be gone (shutdown after a failure): stopping must still succeed.
    await this.stop().catch((error: unknown) => this.log.error({ err: error }, 'content event listener did not stop cleanly'));
  }
}
