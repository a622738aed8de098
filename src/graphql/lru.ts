/**
 * A bounded least-recently-used map. A Map keeps insertion order, so re-inserting an entry on a hit
 * keeps the least recently used entry first, and evicting it is one `keys().next()`: O(1) per
 * operation, no linked list to maintain.
 */
export class LruCache<K, V> {
  private readonly entries = new Map<K, V>();
  /** The most recently used key: a hit on it needs no reordering (the common case of a hot query). */
  private newest: K | undefined;

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`LRU capacity must be a positive integer, got ${capacity}`);
  }

  get size(): number {
    return this.entries.size;
  }

  get(key: K): V | undefined {
    const value = this.entries.get(key);
    if (value === undefined || key === this.newest) return value;
    this.entries.delete(key);
    this.entries.set(key, value);
    this.newest = key;
    return value;
  }

  set(key: K, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    this.newest = key;
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value as K);
  }
}
