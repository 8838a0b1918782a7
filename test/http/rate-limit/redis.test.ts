import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { buildTestApp, JSON_HEADERS, type TestApp } from '../../helpers/app.js';
import { capturingLogger } from '../../helpers/logs.js';
import { freePort } from '../../helpers/processes.js';
import { sleep, waitFor } from '../../helpers/wait.js';
import { createRateLimits } from '../../../src/http/rate-limit/limiter.js';

const REDIS_URL = process.env.REDIS_URL;


/** A Redis server of this test's own, so it can be stopped and started without disturbing others. */
async function startRedis(port: number): Promise<ChildProcess> {
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: 'ignore',
  });
  const { Redis } = await import('ioredis');
  await waitFor(async () => {
    const probe = new Redis({ port, lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0 });
    probe.on('error', () => undefined);
    try {
      await probe.connect();
      return (await probe.ping()) === 'PONG';
    } catch {
      return false;
    } finally {
      probe.disconnect();
    }
  }, 5000);
  return child;
}

const stopRedis = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });

describe.runIf(REDIS_URL)('rate limits shared through Redis', () => {
  const apps: TestApp[] = [];
  const redisServers: ChildProcess[] = [];
  afterEach(async () => {
    await Promise.all(apps.splice(0).map((app) => app.close()));
    await Promise.all(redisServers.splice(0).map((server) => (server.exitCode === null ? stopRedis(server) : undefined)));
  });

  const instance = async (env: Record<string, string>, logger?: ReturnType<typeof capturingLogger>['logger']) => {
    const app = await buildTestApp({ RATE_LIMIT_UNAUTHENTICATED: '3', ...env }, logger ? { logger } : {});
    apps.push(app);
    return app;
  };
  const hit = (t: TestApp) => t.app.inject({ method: 'GET', url: '/api/user', headers: JSON_HEADERS });

  it('gives two instances on one Redis one budget', async () => {
    const shared = { REDIS_URL: REDIS_URL!, REDIS_KEY_PREFIX: `test-${randomUUID()}` };
    const first = await instance(shared);
    const second = await instance(shared);
    expect((await hit(first)).headers['x-ratelimit-remaining']).toBe('2');
    expect((await hit(second)).headers['x-ratelimit-remaining']).toBe('1');
    const third = await hit(first);
    expect(third.statusCode).toBe(401);
    expect(third.headers['x-ratelimit-remaining']).toBe('0');
    expect((await hit(second)).statusCode).toBe(429);
    expect((await hit(first)).statusCode).toBe(429);
    // Both announce the same window end.
    expect((await hit(first)).headers['x-ratelimit-reset']).toBe((await hit(second)).headers['x-ratelimit-reset']);
  });

  it('announces one reset for every request of a window, even when its end sits on a second', async () => {
    const { Redis } = await import('ioredis');
    const redis = new Redis(REDIS_URL!);
    // Ready first: before, the limiter counts in the process (and there is no key to move).
    await redis.ping();
    const keyPrefix = `test-${randomUUID()}`;
    const limits = createRateLimits({ authenticatedLimit: 1000, unauthenticatedLimit: 1000, redis, keyPrefix });
    try {
      await limits.consume('user', 'edge');
      // The window now ends on a whole second: now + the remaining time, read after each answer,
      // falls on either side of it from one answer to the next.
      const endsAt = Math.ceil(Date.now() / 1000) * 1000 + 30_000;
      expect(await redis.pexpireat(`${keyPrefix}:rl:user:edge`, endsAt)).toBe(1);
      const resets = new Set<number>();
      for (let i = 0; i < 60; i++) resets.add((await limits.consume('user', 'edge')).resetAtSeconds);
      expect([...resets]).toHaveLength(1);
      expect(Math.abs([...resets][0]! - endsAt / 1000)).toBeLessThanOrEqual(1);
    } finally {
      limits.close();
      redis.disconnect();
    }
  });

  it('counts concurrent requests of two instances each exactly once, together in few Redis calls', async () => {
    const port = await freePort();
    redisServers.push(await startRedis(port));
    const env = { REDIS_URL: `redis://127.0.0.1:${port}`, REDIS_KEY_PREFIX: `test-${randomUUID()}`, RATE_LIMIT_UNAUTHENTICATED: '50' };
    const first = await instance(env);
    const second = await instance(env);
    await waitFor(async () => (await hit(first)).headers['x-ratelimit-remaining'] === '49', 5000);
    const { Redis } = await import('ioredis');
    const probe = new Redis({ port });
    const scriptCalls = async () => {
      const stats = await probe.info('commandstats');
      return ['eval', 'evalsha'].reduce((sum, command) => sum + Number(new RegExp(`cmdstat_${command}:calls=(\\d+)`).exec(stats)?.[1] ?? 0), 0);
    };
    const callsBefore = await scriptCalls();

    // 30 requests on each instance at once: 60 more for a budget of which 49 are left.
    const answers = await Promise.all(Array.from({ length: 60 }, (_, i) => hit(i % 2 === 0 ? first : second)));
    const remaining = answers.map((answer) => Number(answer.headers['x-ratelimit-remaining'])).sort((a, b) => b - a);
    // Each request took its own place in the count: 48, 47, ..., 0 once each, then 0 for the 11 refused.
    expect(remaining).toEqual([...Array.from({ length: 49 }, (_, i) => 48 - i), ...Array<number>(11).fill(0)]);
    expect(answers.filter((answer) => answer.statusCode === 429)).toHaveLength(11);
    expect(answers.filter((answer) => answer.statusCode === 401)).toHaveLength(49);
    // The count in Redis holds every one of them: 1 + 60.
    const [key] = await probe.keys(`${env.REDIS_KEY_PREFIX}:rl:addr*`);
    expect(await probe.get(key!)).toBe('61');
    // The requests that arrived in one turn of an instance's event loop went in one call.
    expect((await scriptCalls()) - callsBefore).toBeLessThan(60);
    probe.disconnect();
  });

  it('keeps answering with per-process counters when Redis cannot be reached, and says so once', async () => {
    const port = await freePort();
    const logs = capturingLogger('warn');
    const t = await instance({ REDIS_URL: `redis://127.0.0.1:${port}` }, logs.logger);
    const statuses = [];
    for (let i = 0; i < 5; i++) {
      const response = await hit(t);
      statuses.push(response.statusCode);
      expect(response.headers['x-ratelimit-limit']).toBe('3');
    }
    expect(statuses).toEqual([401, 401, 401, 429, 429]);
    await sleep(300);
    const warnings = logs.lines().filter((line) => String(line.msg).includes('Redis is unreachable'));
    expect(warnings).toHaveLength(1);
  });

  it('falls back when Redis stops mid-way and shares the budget again when it returns', async () => {
    const port = await freePort();
    redisServers.push(await startRedis(port));
    const logs = capturingLogger('info');
    const env = { REDIS_URL: `redis://127.0.0.1:${port}`, REDIS_KEY_PREFIX: `test-${randomUUID()}` };
    const first = await instance(env, logs.logger);
    const second = await instance(env);
    await waitFor(async () => (await hit(first)).headers['x-ratelimit-remaining'] === '2', 5000);
    expect((await hit(second)).headers['x-ratelimit-remaining']).toBe('1');

    await stopRedis(redisServers.pop()!);
    // Each process now counts on its own; nothing fails.
    const during = await hit(first);
    expect([401, 429]).toContain(during.statusCode);
    expect(during.headers['x-ratelimit-limit']).toBe('3');
    await waitFor(async () => logs.text().includes('Redis is unreachable'), 3000);

    redisServers.push(await startRedis(port));
    await waitFor(async () => logs.text().includes('Redis is reachable again'), 5000);
    // A fresh Redis holds no counters: the shared budget starts over and both instances use it.
    expect((await hit(first)).headers['x-ratelimit-remaining']).toBe('2');
    expect((await hit(second)).headers['x-ratelimit-remaining']).toBe('1');
    expect(logs.lines().filter((line) => String(line.msg).includes('Redis is unreachable'))).toHaveLength(1);
  });
});
