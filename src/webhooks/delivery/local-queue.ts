/**
 * What one worker holds of the shared queue: the deliveries it claimed and has not sent yet, oldest
 * first, and how many of its HTTP calls are in flight, in all and per endpoint. The counts decide
 * what is sent next and how many rows the next claim asks for, so they live here beside the list
 * they count, and every move of a delivery changes both together.
 */
import type { ClaimedDelivery } from './queue.repository.ts';

interface Limits {
  /** HTTP calls in flight at most. */
  concurrency: number;
  /** In flight for one endpoint at most, and held (claimed, not answered) before claims skip it. */
  perEndpoint: number;
}

export class LocalQueue {
  /** Claimed, not sent yet, each with the time its lease runs out. */
  private waiting: { delivery: ClaimedDelivery; leaseEnds: number }[] = [];
  private inFlight = 0;
  /** Per endpoint: in flight (the per-endpoint cap applies to these). */
  private readonly sending = new Map<string, number>();
  /** Per endpoint: claimed and not answered yet (in flight or waiting). */
  private readonly holding = new Map<string, number>();
  /** Claimed but not yet sent, beside the ones in flight: one more round of slots. */
  private readonly capacity: number;
  /** Refilled at half a round left, so a claim in a burst takes at least half a round of rows. */
  private readonly refillBelow: number;

  constructor(private readonly limits: Limits) {
    this.capacity = limits.concurrency * 2;
    this.refillBelow = Math.floor(limits.concurrency / 2);
  }

  /** How many rows the next claim asks for; 0 when enough is in hand. */
  claimSize(): number {
    const free = this.capacity - this.inFlight - this.waiting.length;
    // Enough is in hand for now: a claim for a few rows would cost a statement for little.
    if (free <= 0 || (this.waiting.length > this.refillBelow && free < this.refillBelow)) return 0;
    return free;
  }

  /** Endpoints this worker holds its share of already: the next claim skips them. */
  saturated(): string[] {
    return [...this.holding].filter(([, n]) => n >= this.limits.perEndpoint).map(([endpoint]) => endpoint);
  }

  add(claimed: readonly ClaimedDelivery[], leaseEnds: number): void {
    for (const delivery of claimed) {
      this.waiting.push({ delivery, leaseEnds });
      count(this.holding, delivery.endpoint_id, 1);
    }
  }

  /**
   * Takes the deliveries to send now, oldest first, while slots are free, skipping endpoints at
   * their cap; they count as in flight at once. One with less than `minLeaseMs` of its lease left
   * (it waited too long behind its endpoint's slow answers) is taken out as `stale`, not sent.
   */
  takeReady(now: number, minLeaseMs: number): { ready: ClaimedDelivery[]; stale: string[] } {
    const ready: ClaimedDelivery[] = [];
    const stale: string[] = [];
    for (let i = 0; i < this.waiting.length && this.inFlight < this.limits.concurrency;) {
      const { delivery, leaseEnds } = this.waiting[i]!;
      if (leaseEnds - now < minLeaseMs) {
        this.waiting.splice(i, 1);
        count(this.holding, delivery.endpoint_id, -1);
        stale.push(delivery.id);
      } else if ((this.sending.get(delivery.endpoint_id) ?? 0) < this.limits.perEndpoint) {
        this.waiting.splice(i, 1);
        this.inFlight++;
        count(this.sending, delivery.endpoint_id, 1);
        ready.push(delivery);
      } else i++;
    }
    return { ready, stale };
  }

  /** The answer to `d` (or the failure to get one) is in: its slot is free. */
  answered(d: ClaimedDelivery): void {
    this.inFlight--;
    count(this.sending, d.endpoint_id, -1);
    count(this.holding, d.endpoint_id, -1);
  }

  /** Little is left waiting: time to claim more before it runs dry. */
  runningLow(): boolean {
    return this.waiting.length > 0 && this.waiting.length <= this.refillBelow;
  }

  /** Takes out the waiting deliveries of one endpoint (all of them without one): their ids. */
  withdraw(endpointId?: string): string[] {
    const taken: string[] = [];
    this.waiting = this.waiting.filter(({ delivery }) => {
      if (endpointId !== undefined && delivery.endpoint_id !== endpointId) return true;
      taken.push(delivery.id);
      count(this.holding, delivery.endpoint_id, -1);
      return false;
    });
    return taken;
  }
}

function count(counts: Map<string, number>, key: string, by: number): void {
  const n = (counts.get(key) ?? 0) + by;
  if (n > 0) counts.set(key, n);
  else counts.delete(key);
}
