/**
 * One timer for the earliest retry a worker scheduled itself, or the reopening of a rate window it
 * spent: it claims right then instead of waiting for the poll. A later retry never moves it back;
 * the claim it triggers takes every retry due by then, and a retry scheduled after it sets it again.
 */

/** How long after a retry's time its claim runs (see arm). */
const RETRY_WAKE_MARGIN_MS = 1;

export class RetryAlarm {
  private timer: NodeJS.Timeout | undefined;
  private at = Infinity;

  constructor(private readonly ring: () => void) {}

  /** Rings at `at` at the latest: an earlier time already set stands. */
  setBy(at: number): void {
    if (at >= this.at) return;
    clearTimeout(this.timer);
    this.at = at;
    this.arm();
  }

  cancel(): void {
    clearTimeout(this.timer);
  }

  /**
   * A timer counts from the event loop's cached clock, which lags the real one by however long the
   * current turn has run: it can fire before `Date.now()` reaches its time, when a claim would find
   * the retry not yet due and leave it to the poll. So it checks the clock, and waits out the rest.
   */
  private arm(): void {
    this.timer = setTimeout(
      () => {
        if (Date.now() < this.at) return this.arm();
        this.at = Infinity;
        this.ring();
      },
      Math.max(this.at - Date.now(), 0) + RETRY_WAKE_MARGIN_MS,
    );
    this.timer.unref();
  }
}
