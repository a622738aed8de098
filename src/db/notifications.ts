/**
 * LISTEN on one channel of the database, on either driver: PGlite's in-process listener, or on
 * PostgreSQL one dedicated connection outside the pool (so ending the pool never waits on it), taken
 * again after it drops. A notification sent while that connection was down is lost, so callers get
 * `onReconnect` to re-check whatever they keep.
 */
import pg from 'pg';
import type { DatabaseHandle } from './database.ts';

const RECONNECT_DELAY_MS = 1000;

interface ChannelLog {
  error(details: object, message: string): void;
}

export interface ChannelListener {
  /** Stops listening; succeeds even when the database is already gone. */
  close(): Promise<void>;
}

export async function listenToChannel(
  database: DatabaseHandle,
  channel: string,
  onPayload: (payload: string) => void,
  options: { log: ChannelLog; onReconnect?: () => void },
): Promise<ChannelListener> {
  if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`not a plain channel name: ${channel}`);
  const deliver = (payload: string | undefined) => {
    if (payload) onPayload(payload);
  };
  if (database.pglite) {
    const unlisten = await database.pglite.listen(channel, deliver);
    return {
      close: () => unlisten().catch((error: unknown) => options.log.error({ err: error }, `${channel} listener did not stop cleanly`)),
    };
  }
  const pool = database.pool;
  if (!pool) throw new Error('the database handle offers no LISTEN/NOTIFY channel');

  let closed = false;
  let stop: () => Promise<void> = async () => {};
  const connect = async (): Promise<void> => {
    const client = new pg.Client(pool.options);
    await client.connect();
    let released = false;
    const release = async () => {
      if (released) return;
      released = true;
      client.removeAllListeners('notification');
      await client.end().catch(() => {});
    };
    client.on('notification', (message) => deliver(message.payload));
    client.on('error', (error) => {
      options.log.error({ err: error }, `${channel} listener lost its connection; reconnecting`);
      void release();
      reconnect();
    });
    await client.query(`LISTEN ${channel}`);
    stop = async () => {
      if (released) return;
      await client.query(`UNLISTEN ${channel}`).catch(() => {});
      await release();
    };
  };
  const reconnect = () => {
    if (closed) return;
    setTimeout(() => {
      if (closed) return;
      connect().then(
        () => options.onReconnect?.(),
        (error: unknown) => {
          options.log.error({ err: error }, `${channel} listener cannot reconnect; retrying`);
          reconnect();
        },
      );
    }, RECONNECT_DELAY_MS).unref();
  };
  await connect();
  return {
    close: async () => {
      closed = true;
      await stop();
    },
  };
}
