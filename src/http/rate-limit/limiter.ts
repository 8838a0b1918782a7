import type { Redis } from 'ioredis';
import {
  RateLimiterCluster,
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';

// HOT PATH (see docs/architecture.md): in-process fixed windows counted synchronously.

export const WINDOW_SECONDS = 60;

/**
 * Who a request counts against: a user (valid token), a client address (anything else), or a
 * calendar feed (its route counts a known feed by its token: calendar services fetch many
 * families' feeds from a few shared addresses).
 */
export type Bucket = 'user' | 'address' | 'calendar';

export interface RateDecision {
  allowed: boolean;
  limit: number;
  /** Requests left in this window, never below 0. */
  remaining: number;
  /** Unix seconds at which the window ends; the same for every request of one window. */
  resetAtSeconds: number;
  /** Whole seconds until the reset, at least 1 (for Retry-After). */
  retryAfterSeconds: number;
}

export interface RateLimits {
  consume(bucket: Bucket, key: string): Promise<RateDecision>;
  /** The same, synchronously, where the counters live in this process; undefined elsewhere. */
  consumeNow?(bucket: Bucket, key: string): RateDecision;
  /** Stops the sweep of ended windows (the app closes): nothing then holds the counters. */
  close(): void;
}

export interface RateLimitOptions {
  authenticatedLimit: number;
  unauthenticatedLimit: number;
  /** Fetches of one calendar feed a minute; default 30 (RATE_LIMIT_CALENDAR). */
  calendarLimit?: number;
  /** Shared counters; without it, counters live in this process. */
  redis?: Redis;
  /** Separates the keys of deployments (or test runs) that share one Redis. */
  keyPrefix: string;
  /**
   * Where counters live without Redis (and while it is away): this process ('memory'), or the
   * cluster primary ('cluster'), so that all workers of one machine share one exact count.
   */
  localStore?: 'memory' | 'cluster';
  /** Told when counting fails and a bucket falls back to this process's own counters. */
  onFallback?: (err: unknown) => void;
}

function limiterFor(points: number, keyPrefix: string, options: RateLimitOptions): RateLimiterAbstract {
  const { redis, localStore = 'memory' } = options;
  // Fixed windows: a key's window starts with its first request and lasts WINDOW_SECONDS.
  const local =
    localStore === 'cluster'
      ? new RateLimiterCluster({ points, duration: WINDOW_SECONDS, keyPrefix, timeoutMs: 1000 })
      : new RateLimiterMemory({ points, duration: WINDOW_SECONDS, keyPrefix });
  if (!redis) return local;
  return new RateLimiterRedis({
    storeClient: redis,
    points,
    duration: WINDOW_SECONDS,
    keyPrefix,
    // While Redis is away, each process counts on its own; no request fails for it.
    rejectIfRedisNotReady: true,
    insuranceLimiter: local,
  });
}

const DEFAULT_CALENDAR_LIMIT = 30;

const limitsOf = (options: RateLimitOptions): Record<Bucket, number> => ({
  user: options.authenticatedLimit,
  address: options.unauthenticatedLimit,
  calendar: options.calendarLimit ?? DEFAULT_CALENDAR_LIMIT,
});

function decide(limit: number, consumed: number, windowEndMs: number, nowMs: number, allowed: boolean): RateDecision {
  const resetAtSeconds = Math.ceil(windowEndMs / 1000);
  return {
    allowed,
    limit,
    remaining: Math.max(0, limit - consumed),
    resetAtSeconds,
    retryAfterSeconds: Math.max(1, resetAtSeconds - Math.floor(nowMs / 1000)),
  };
}

/**
 * Fixed windows kept in this process, counted synchronously. Used when counters live in the
 * process anyway (no Redis, one process): rate-limiter-flexible's memory store answers through a
 * promise, and on GET /api/user that was measured at ~10% of the request.
 */
function createLocalRateLimits(options: RateLimitOptions): RateLimits {
  const windows = new Map<string, { count: number; endsAtMs: number }>();
  const windowMs = WINDOW_SECONDS * 1000;
  // Ended windows are dropped once a window; a key's next request starts a new one anyway.
  const sweep = setInterval(() => {
    const nowMs = Date.now();
    for (const [key, window] of windows) if (window.endsAtMs <= nowMs) windows.delete(key);
  }, windowMs).unref();
  const limitOf = (bucket: Bucket) => limitsOf(options)[bucket];
  const consumeNow = (bucket: Bucket, key: string): RateDecision => {
    const nowMs = Date.now();
    const windowKey = `${bucket}:${key}`;
    let window = windows.get(windowKey);
    if (!window || window.endsAtMs <= nowMs) {
      window = { count: 0, endsAtMs: nowMs + windowMs };
      windows.set(windowKey, window);
    }
    window.count++;
    const limit = limitOf(bucket);
    return decide(limit, window.count, window.endsAtMs, nowMs, window.count <= limit);
  };
  return { consumeNow, consume: async (bucket, key) => consumeNow(bucket, key), close: () => clearInterval(sweep) };
}

export function createRateLimits(options: RateLimitOptions): RateLimits {
  if (!options.redis && (options.localStore ?? 'memory') === 'memory') return createLocalRateLimits(options);
  const bucket = (limit: number, keyPrefix: string) => ({
    limit,
    limiter: limiterFor(limit, keyPrefix, options),
    // The last resort when the configured store fails in an unexpected way: a request never
    // fails because counting did.
    fallback: new RateLimiterMemory({ points: limit, duration: WINDOW_SECONDS, keyPrefix }),
  });
  const limits: Record<Bucket, ReturnType<typeof bucket>> = {
    user: bucket(options.authenticatedLimit, `${options.keyPrefix}:rl:user`),
    address: bucket(options.unauthenticatedLimit, `${options.keyPrefix}:rl:addr`),
    calendar: bucket(limitsOf(options).calendar, `${options.keyPrefix}:rl:cal`),
  };
  const consumeSomewhere = async (entry: ReturnType<typeof bucket>, key: string, points: number) => {
    try {
      return await entry.limiter.consume(key, points);
    } catch (err) {
      if (err instanceof RateLimiterRes) throw err;
      options.onFallback?.(err);
      return entry.fallback.consume(key, points);
    }
  };
  /** Counts `points` requests at once: the count after them, and whether the store refused them. */
  const countTogether = async (entry: ReturnType<typeof bucket>, key: string, points: number) => {
    try {
      return { result: await consumeSomewhere(entry, key, points), refused: false };
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      return { result: rejection, refused: true };
    }
  };

  // The requests of one event-loop turn that count against the same key are counted with one
  // call (one INCRBY of their number in Redis's script), and each takes its own place in the
  // count, in the order they asked: every request is counted exactly once, as before, and the
  // headers stay exact across instances, but Redis sees one command per key and turn instead of
  // one per request (see docs/benchmarks/design.md).
  interface Waiting {
    /** `<bucket> <key>`: the turn's map key, and the key of the window's announced end. */
    id: string;
    bucket: Bucket;
    key: string;
    answers: { resolve: (decision: RateDecision) => void; reject: (err: unknown) => void }[];
  }
  let waiting = new Map<string, Waiting>();

  // A window's end, read as now + the store's remaining time, moves by the round trip from one
  // answer to the next, and X-RateLimit-Reset flipped to the next second when the end sat at a
  // second's edge. The reset first announced for a window is kept for the rest of it (one entry
  // per key with a window open, dropped once a window after its end).
  const announcedEnds = new Map<string, { endMs: number; announcedMs: number }>();
  const sweep = setInterval(() => {
    const nowMs = Date.now();
    for (const [id, end] of announcedEnds) if (end.endMs <= nowMs) announcedEnds.delete(id);
  }, WINDOW_SECONDS * 1000).unref();
  const windowEndOf = (id: string, endMs: number): number => {
    const known = announcedEnds.get(id);
    if (known && Math.abs(known.endMs - endMs) < 1000) return known.announcedMs;
    announcedEnds.set(id, { endMs, announcedMs: endMs });
    return endMs;
  };

  const countWaiting = async ({ id, bucket: bucketName, key, answers }: Waiting) => {
    const entry = limits[bucketName];
    try {
      const { result, refused } = await countTogether(entry, key, answers.length);
      const nowMs = Date.now();
      const windowEndMs = windowEndOf(id, nowMs + result.msBeforeNext);
      // A refusal that is not about the count (a block) refuses them all.
      const blocked = refused && result.consumedPoints <= entry.limit;
      answers.forEach(({ resolve }, place) => {
        const consumed = result.consumedPoints - (answers.length - 1 - place);
        resolve(decide(entry.limit, Math.max(consumed, 0), windowEndMs, nowMs, !blocked && consumed <= entry.limit));
      });
    } catch (err) {
      for (const { reject } of answers) reject(err);
    }
  };
  const countAllWaiting = () => {
    const turn = waiting;
    waiting = new Map();
    for (const entry of turn.values()) void countWaiting(entry);
  };
  return {
    consume(bucketName, key) {
      return new Promise<RateDecision>((resolve, reject) => {
        if (waiting.size === 0) setImmediate(countAllWaiting);
        const id = `${bucketName} ${key}`;
        let entry = waiting.get(id);
        if (!entry) {
          entry = { id, bucket: bucketName, key, answers: [] };
          waiting.set(id, entry);
        }
        entry.answers.push({ resolve, reject });
      });
    },
    // The stores' own timers end with the windows they keep.
    close: () => clearInterval(sweep),
  };
}
