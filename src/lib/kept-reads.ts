import { LRUCache } from 'lru-cache';

/** Reads by key, each kept for a short while: concurrent callers share one read under way. */
export interface KeptReads<T> {
  get(key: string): Promise<T>;
  /** The next `get` reads again, even while a read is under way. */
  forget(key: string): void;
}

/**
 * Keeps each key's read (the promise, not its value) for `keepMs`, so that a burst of requests
 * reads once; a read that fails is dropped at once, unless a newer one has replaced it.
 */
export function keepReads<T>(read: (key: string) => Promise<T>, keepMs: number, max = 10_000): KeptReads<T> {
  const kept = new LRUCache<string, Promise<T>>({ max, ttl: keepMs });
  return {
    get(key) {
      let reading = kept.get(key);
      if (!reading) {
        const started = read(key);
        kept.set(key, started);
        started.catch(() => kept.get(key) === started && kept.delete(key));
        reading = started;
      }
      return reading;
    },
    forget: (key) => void kept.delete(key),
  };
}
