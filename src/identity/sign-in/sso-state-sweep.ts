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
  stop(): void;
}

export function startSsoStateSweep(db: Database, log: { warn(obj: object, msg: string): void }, intervalMs = SWEEP_INTERVAL_MS): Sweep {
  const timer = setInterval(() => {
    deleteExpiredSsoState(db).catch((error: unknown) => log.warn({ err: error }, 'deleting expired sign-in state failed'));
  }, intervalMs);
  // A sweep never keeps a process alive on its own.
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
