import { Redis } from 'ioredis';
import type { FastifyBaseLogger } from 'fastify';

/**
 * A Redis connection for shared counters that never makes a request wait on Redis: commands
 * fail at once while it is away (no offline queue, short timeouts), it reconnects by itself,
 * and an outage is logged once when it starts and once when it ends.
 */
export function createRedisClient(url: string, logger: Pick<FastifyBaseLogger, 'warn' | 'info'>): Redis {
  const client = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectTimeout: 1000,
    commandTimeout: 500,
    retryStrategy: (attempt) => Math.min(attempt * 100, 1000),
    // Off: the limiter already counts a turn's requests with one call per key (limiter.ts), and
    // auto-pipelining only held that call back to the next tick, inside a pipeline of one
    // command: 20 % fewer requests a second (docs/benchmarks/design.md).
    enableAutoPipelining: false,
  });
  let down = false;
  const markDown = (err?: Error) => {
    if (down) return;
    down = true;
    logger.warn(
      { err: err ? { message: err.message } : undefined },
      'Redis is unreachable; rate limits fall back to per-process counters until it is back',
    );
  };
  client.on('error', markDown);
  client.on('close', () => markDown());
  client.on('ready', () => {
    if (down) logger.info('Redis is reachable again; rate limits are shared again');
    down = false;
  });
  return client;
}

/** Resolves when the client is connected, or after timeoutMs: a start never hangs on Redis. */
export function waitUntilReady(client: Redis, timeoutMs: number): Promise<boolean> {
  if (client.status === 'ready') return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      client.off('ready', onReady);
      resolve(false);
    }, timeoutMs);
    const onReady = () => {
      clearTimeout(timer);
      resolve(true);
    };
    client.once('ready', onReady);
  });
}
