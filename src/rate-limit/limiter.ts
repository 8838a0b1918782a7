import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';

export const WINDOW_SECONDS = 60;

/** Who a request counts against: a user (valid token) or a client address (anything else). */
export type Bucket = 'user' | 'address';

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
}

export interface RateLimitOptions {
  authenticatedLimit: number;
  unauthenticatedLimit: number;
  /** Shared counters; without it, counters live in this process. */
  redis?: Redis;
  /** Separates the keys of deployments (or test runs) that share one Redis. */
  keyPrefix: string;
}

function limiterFor(points: number, keyPrefix: string, redis: Redis | undefined): RateLimiterAbstract {
  // Fixed windows: a key's window starts with its first request and lasts WINDOW_SECONDS.
  const memory = new RateLimiterMemory({ points, duration: WINDOW_SECONDS, keyPrefix });
  if (!redis) return memory;
  return new RateLimiterRedis({
    storeClient: redis,
    points,
    duration: WINDOW_SECONDS,
    keyPrefix,
    // While Redis is away, each process counts on its own; no request fails for it.
    rejectIfRedisNotReady: true,
    insuranceLimiter: memory,
  });
}

export function createRateLimits(options: RateLimitOptions): RateLimits {
  const limits: Record<Bucket, { limit: number; limiter: RateLimiterAbstract }> = {
    user: {
      limit: options.authenticatedLimit,
      limiter: limiterFor(options.authenticatedLimit, `${options.keyPrefix}:rl:user`, options.redis),
    },
    address: {
      limit: options.unauthenticatedLimit,
      limiter: limiterFor(options.unauthenticatedLimit, `${options.keyPrefix}:rl:addr`, options.redis),
    },
  };
  return {
    async consume(bucket, key) {
      const { limit, limiter } = limits[bucket];
      let result: RateLimiterRes;
      let allowed = true;
      try {
        result = await limiter.consume(key);
      } catch (rejection) {
        if (!(rejection instanceof RateLimiterRes)) throw rejection;
        result = rejection;
        allowed = false;
      }
      const nowMs = Date.now();
      const resetAtSeconds = Math.ceil((nowMs + result.msBeforeNext) / 1000);
      return {
        allowed,
        limit,
        remaining: Math.max(0, limit - result.consumedPoints),
        resetAtSeconds,
        retryAfterSeconds: Math.max(1, resetAtSeconds - Math.floor(nowMs / 1000)),
      };
    },
  };
}
