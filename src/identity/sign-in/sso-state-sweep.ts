/**
 * Deletes sign-in state past its time every ten minutes: sign-ins never completed, remembered
 * assertion ids past their replay window, spent rate windows (deleteExpiredSsoState). A background
 * job of the processes, started by the composition roots (src/server.ts, src/worker.ts), not by a
 * route plugin; several processes sweeping one database delete the same rows, which is harmless.
 */
import type { Database } from '../../db/database.ts';
import { deleteExpiredSsoState } from './sso-state.repository.ts';

const SWEEP_INTERVAL_MS = 10 * 60_000;

export interface Sweep {
  /** No more ticks; resolves once a sweep under way has finished (the database may close then). */
  stop(): Promise<void>;
}

export function startSsoStateSweep(db: Database, log: { warn(obj: object, msg: string): void }, intervalMs = SWEEP_INTERVAL_MS): Sweep {
  let running: Promise<void> | null = null;
  const timer = setInterval(() => {
    // One sweep at a time: a slow one is not joined by the next.
    running ??= deleteExpiredSsoState(db)
      .catch((error: unknown) => log.warn({ err: error }, 'deleting expired sign-in state failed'))
      .finally(() => {
        running = null;
      });
  }, intervalMs);
  // A sweep never keeps a process alive on its own.
  timer.unref();
  return {
    stop: async () => {
      clearInterval(timer);
      await running;
    },
  };
}
