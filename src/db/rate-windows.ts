/**
 * Fixed-window counters in `rate_limit_windows`, one row per key, shared by every instance on the
 * database. One statement counts an attempt and says where the window stands: the row's window is
 * restarted when it has run out, so a key needs no clean-up to be counted afresh (spent rows older
 * than an hour are deleted with the sign-in state, src/identity/sign-in/sso-state.repository.ts).
 *
 * Keys are prefixed by their area and action (`create-user:address:<ip>`, `login:account:<e-mail>`),
 * so areas never share a budget: the sign-in budgets (src/identity/sign-in/attempt-budget.ts) and the
 * content area's sign-up budget count here.
 */
import { sql } from 'kysely';
import type { Database } from './database.ts';

interface WindowCount {
  /** Attempts in the current window, this one included. */
  count: number;
  /** Whole seconds until the window ends (at least 1): what a refusal's Retry-After says. */
  secondsLeft: number;
}

/** Counts one attempt under `key` in fixed windows of `windowS` seconds. */
export async function countInWindow(db: Database, key: string, windowS = 60): Promise<WindowCount> {
  const row = await sql<{ count: number; seconds_left: number }>`
    insert into rate_limit_windows as w (key, window_start, count) values (${key}, now(), 1)
    on conflict (key) do update set
      window_start = case when w.window_start <= now() - make_interval(secs => ${windowS}) then now() else w.window_start end,
      count = case when w.window_start <= now() - make_interval(secs => ${windowS}) then 1 else w.count + 1 end
    returning count, ceil(extract(epoch from (window_start + make_interval(secs => ${windowS}) - now())))::int as seconds_left`.execute(db);
  const { count, seconds_left } = row.rows[0]!;
  return { count, secondsLeft: Math.max(1, seconds_left) };
}
