/**
 * The statistics of the harness, pure and seeded so that test/bench/harness.test.ts can pin them:
 * the order servers are measured in, the median of per-round ratios and its bootstrap interval.
 */

/** A seeded PRNG (mulberry32): the same seed gives the same orders and intervals on every run. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function shuffle<T>(items: readonly T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/**
 * A Williams design for `n` servers: `n` rows (2n for odd n, the mirror rows added) in which every
 * server takes every position equally often and runs right after every other server exactly once
 * (twice for odd n), so no server always inherits the heap and CPU caches of the same peer.
 */
function williams(n: number): number[][] {
  const first = Array.from({ length: n }, (_, k) => (k % 2 ? (k + 1) / 2 : (n - k / 2) % n));
  const rows = Array.from({ length: n }, (_, r) => first.map((s) => (s + r) % n));
  return n % 2 ? [...rows, ...rows.map((row) => [...row].reverse())] : rows;
}

/**
 * The order of `n` servers in each of `rounds` rounds: blocks of a Williams design, each with its
 * servers relabelled at random and its rows shuffled. `rounds` is rounded up to whole blocks
 * (n rounds a block, 2n for odd n).
 */
export function balancedOrders(n: number, rounds: number, random: () => number): number[][] {
  if (n < 1) throw new Error('balancedOrders needs at least one server');
  const design = williams(n);
  const orders: number[][] = [];
  while (orders.length < rounds) {
    const label = shuffle(
      Array.from({ length: n }, (_, i) => i),
      random,
    );
    for (const row of shuffle(design, random)) orders.push(row.map((s) => label[s]!));
  }
  return orders;
}

export function median(values: readonly number[]): number {
  if (!values.length) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Quantile by linear interpolation between closest ranks (q in [0, 1]). */
export function quantile(values: readonly number[], q: number): number {
  if (!values.length) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const position = (sorted.length - 1) * q;
  const low = Math.floor(position);
  const high = Math.ceil(position);
  return sorted[low]! + (sorted[high]! - sorted[low]!) * (position - low);
}

/** Per-round ratios a[i] / b[i]: both measured in the same round, seconds apart. */
export function perRoundRatios(a: readonly number[], b: readonly number[]): number[] {
  if (a.length !== b.length) throw new Error(`rounds differ: ${a.length} and ${b.length}`);
  return a.map((value, i) => value / b[i]!);
}

export interface RatioEstimate {
  median: number;
  /** Bootstrap 95 % interval of the median (percentile method). */
  low: number;
  high: number;
}

/**
 * The median of the per-round ratios with a percentile-bootstrap 95 % interval: the rounds are
 * resampled with replacement `resamples` times and the 2.5th and 97.5th percentiles of the
 * resampled medians bound the interval.
 */
export function bootstrapMedian(ratios: readonly number[], random: () => number, resamples = 2000): RatioEstimate {
  const medians: number[] = [];
  const sample = new Array<number>(ratios.length);
  for (let r = 0; r < resamples; r++) {
    for (let i = 0; i < ratios.length; i++) sample[i] = ratios[Math.floor(random() * ratios.length)]!;
    medians.push(median(sample));
  }
  return { median: median(ratios), low: quantile(medians, 0.025), high: quantile(medians, 0.975) };
}
