/**
 * Keeps `scim_activity` bounded: every ten minutes, each tenant's newest 1,000 requests and nothing
 * older than 30 days. A background job of the processes, started by the composition roots
 * (src/server.ts, src/worker.ts) as the sign-in state sweep is; several processes sweeping one
 * database delete the same rows, which is harmless.
 *
 * Why that bound: the activity answers "are my identity provider's calls arriving, and which
 * failed?" while an administrator connects or troubleshoots it, so recent calls are what matter. A
 * thousand covers the tail of an initial sync and days of incremental changes of a large tenant, and
 * a per-tenant count keeps one tenant's full sync (tens of thousands of calls) from growing the table
 * without limit or crowding out the others. The rows name people (userName), and an activity log is
 * not the record of who was provisioned (the users and groups are), so 30 days is as long as a
 * label outlives the call, a deleted user's included. Between sweeps a busy tenant may hold more than
 * a thousand rows for a few minutes; reads page over them all the same.
 */
import type { Database } from '../../db/database.ts';
import { deleteBeyondRetention } from './scim-activity.repository.ts';

const SWEEP_INTERVAL_MS = 10 * 60_000;

const SCIM_ACTIVITY_RETENTION = { keepPerTenant: 1000, maxAgeDays: 30 } as const;

interface Sweep {
  /** No more ticks; resolves once a sweep under way has finished (the database may close then). */
  stop(): Promise<void>;
}

/** One sweep: what the job runs on each tick (and tests run directly). */
export function sweepScimActivity(db: Database): Promise<number> {
  return deleteBeyondRetention(db, SCIM_ACTIVITY_RETENTION);
}

export function startScimActivitySweep(db: Database, log: { warn(obj: object, msg: string): void }, intervalMs = SWEEP_INTERVAL_MS): Sweep {
  let running: Promise<void> | null = null;
  const timer = setInterval(() => {
    // One sweep at a time: a slow one is not joined by the next.
    running ??= sweepScimActivity(db)
      .then(() => undefined)
      .catch((error: unknown) => log.warn({ err: error }, 'deleting old SCIM activity failed'))
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
