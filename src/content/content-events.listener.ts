/**
 * The receiving side of content events: one LISTEN per server instance (src/db/notifications.ts:
 * PGlite's in-process listener, or one dedicated connection on PostgreSQL outside the pool), fanned
 * out in memory to every open subscription as an async iterator. Closed on application shutdown so nothing keeps the process
 * or the pool alive.
 */
import type { DatabaseHandle } from '../db/database.ts';
import { listenToChannel } from '../db/notifications.ts';
import { CONTENT_EVENTS_CHANNEL, parseContentEvent, type ContentEvent } from './content.events.ts';

type Handler = (event: ContentEvent) => void;

/** A slow subscriber may fall this far behind before its oldest undelivered events are dropped. */
const MAX_BUFFERED_EVENTS = 1000;

interface ListenerLog {
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

  private dispatch = (payload: string): void => {
    const event = parseContentEvent(payload);
    if (!event) return;
    for (const handler of this.subscriptions.keys()) handler(event);
  };

  private async listen(): Promise<void> {
    const channel = await listenToChannel(this.database, CONTENT_EVENTS_CHANNEL, this.dispatch, { log: this.log });
    this.stop = () => channel.close();
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
