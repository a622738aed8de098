/**
 * What one client may hold on the GraphQL WebSocket of this instance (decision 115): open connections
 * per client address (counted at the upgrade, anonymous and authenticated alike) and per principal
 * (counted once `connection_init` has named one), and operations at once per connection. Each
 * instance counts its own connections: behind a load balancer a client may hold the limit on each.
 */
import type { WebSocket } from 'ws';
import { limitError } from './limits.ts';

/**
 * The close code of a connection over a per-address or per-principal limit. graphql-ws uses 4429 for
 * "Too many initialisation requests"; its client treats the code as fatal and does not retry, which
 * is what a client over its share should do rather than reconnect in a loop.
 */
export const CLOSE_TOO_MANY_CONNECTIONS = 4429;
export const TOO_MANY_CONNECTIONS = 'Too many connections';

/** Open sockets per key (a client address, a principal), at most `max` each. */
export class ConnectionQuota {
  private readonly open = new Map<string, number>();

  constructor(private readonly max: number) {}

  /**
   * Counts `socket` under `key` until it closes; false, counting nothing, when `key` holds `max`
   * already. A socket closed before it is counted (by its client, while its credential was being
   * verified) has had its 'close' event already: it takes no place and is not refused.
   */
  take(key: string, socket: WebSocket): boolean {
    if (socket.readyState !== socket.OPEN) return true;
    const count = this.open.get(key) ?? 0;
    if (count >= this.max) return false;
    this.open.set(key, count + 1);
    socket.once('close', () => {
      const left = (this.open.get(key) ?? 1) - 1;
      if (left > 0) this.open.set(key, left);
      else this.open.delete(key);
    });
    return true;
  }
}

/** The refusal of one operation over the per-connection limit: an `error` message for its id. */
export function tooManySubscriptions(max: number) {
  return limitError('TOO_MANY_SUBSCRIPTIONS', `At most ${max} operations may run at once on one connection`);
}
