import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { buildTestApp, hostOf, JSON_HEADERS, PASSWORD, type TestApp } from '../../helpers/app.js';

// A controllable clock: only Date is faked, so the counters' windows move when the test says.
const START = new Date('2026-11-21T10:00:00.250Z');
const nowSeconds = () => Math.floor(Date.now() / 1000);

describe('rate limits (in-process counters)', () => {
  let t: TestApp;
  beforeEach(async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(START);
    t = await buildTestApp({ RATE_LIMIT_AUTHENTICATED: '5', RATE_LIMIT_UNAUTHENTICATED: '3', REDIS_URL: '' });
    await t.addTenant('acme');
  });
  afterEach(async () => {
    await t.close();
    vi.useRealTimers();
  });

  const request = (options: { method?: string; url?: string; host?: string; headers?: Record<string, string>; payload?: unknown }) =>
    t.app.inject({
      method: (options.method ?? 'GET') as 'GET',
      url: options.url ?? '/api/user',
      headers: { ...JSON_HEADERS, host: options.host ?? hostOf('acme'), ...options.headers },
      ...(options.payload === undefined ? {} : { payload: JSON.stringify(options.payload) }),
    });

  const limitHeaders = (response: { headers: Record<string, unknown> }) => ({
    limit: Number(response.headers['x-ratelimit-limit']),
    remaining: Number(response.headers['x-ratelimit-remaining']),
    reset: Number(response.headers['x-ratelimit-reset']),
  });

  it('puts the headers on every answer and answers 429 when the address budget is spent', async () => {
    const reset = Math.ceil((START.getTime() + 60_000) / 1000);
    const answers = [
      await request({}), // 401
      await request({ url: '/api/nowhere' }), // 404
      await request({ url: '/api/login' }), // 405
    ];
    expect(answers.map((r) => r.statusCode)).toEqual([401, 404, 405]);
    expect(answers.map(limitHeaders)).toEqual([
      { limit: 3, remaining: 2, reset },
      { limit: 3, remaining: 1, reset },
      { limit: 3, remaining: 0, reset },
    ]);

    vi.setSystemTime(new Date(START.getTime() + 20_500));
    const rejected = await request({ method: 'POST', url: '/api/login', payload: {} });
    expect(rejected.statusCode).toBe(429);
    expect(rejected.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(limitHeaders(rejected)).toEqual({ limit: 3, remaining: 0, reset });
    const retryAfter = reset - nowSeconds();
    expect(rejected.json()).toEqual({ message: 'Too Many Attempts.', retry_after: retryAfter });
    expect(rejected.headers['retry-after']).toBe(String(retryAfter));
    // The window ends at 10:01:00.250, announced as the next whole second (10:01:01).
    expect(retryAfter).toBe(41);

    // Remaining never goes below zero, however often the client insists.
    const again = await request({});
    expect(limitHeaders(again).remaining).toBe(0);

    // A new window starts with the first request after the old one ended.
    vi.setSystemTime(new Date(START.getTime() + 60_001));
    const fresh = await request({});
    expect(fresh.statusCode).toBe(401);
    expect(limitHeaders(fresh)).toEqual({ limit: 3, remaining: 2, reset: Math.ceil((START.getTime() + 60_001 + 60_000) / 1000) });
  });

  it('counts 422 and unknown tenants too', async () => {
    const invalid = await request({ method: 'POST', url: '/api/login', payload: {} });
    expect(invalid.statusCode).toBe(422);
    expect(limitHeaders(invalid).remaining).toBe(2);
    const unknown = await request({ host: hostOf('nobody') });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual({ success: false, message: 'Tenant not found.' });
    expect(limitHeaders(unknown)).toMatchObject({ limit: 3, remaining: 2 });
  });

  it('decides before hashing: the login after the budget is refused even with the right password', async () => {
    await t.addUser('acme');
    for (let i = 0; i < 3; i++) {
      expect((await request({ method: 'POST', url: '/api/login', payload: { username: 'alice', password: 'wrong' } })).statusCode).toBe(401);
    }
    const fourth = await request({ method: 'POST', url: '/api/login', payload: { username: 'alice', password: PASSWORD } });
    expect(fourth.statusCode).toBe(429);
    // The handler never ran: no token was issued.
    const tokens = await t.storage.tenantDb('acme').selectFrom('personal_access_tokens').select('id').execute();
    expect(tokens).toHaveLength(0);
  });

  it('counts a valid token against its user, with the authenticated limit', async () => {
    const alice = await t.addUser('acme');
    await t.addUser('acme', { username: 'bob' });
    const tokenA1 = await t.login('acme', 'alice', PASSWORD);
    const tokenA2 = await t.login('acme', 'alice', PASSWORD);
    const tokenB = await t.login('acme', 'bob', PASSWORD);
    // The three logins spent the address budget; tokens have their own.
    expect((await request({})).statusCode).toBe(429);

    const statuses: number[] = [];
    for (const token of [tokenA1, tokenA2, tokenA1, tokenA2, tokenA1]) {
      const response = await request({ headers: { authorization: `Bearer ${token}` } });
      statuses.push(response.statusCode);
      expect(limitHeaders(response).limit).toBe(5);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200]);
    const sixth = await request({ headers: { authorization: `Bearer ${tokenA2}` } });
    expect(sixth.statusCode).toBe(429);
    expect(sixth.json()).toMatchObject({ message: 'Too Many Attempts.' });

    // Bob's budget is his own.
    expect((await request({ headers: { authorization: `Bearer ${tokenB}` } })).statusCode).toBe(200);
    // An invalid token is unauthenticated: it counts against the (spent) address budget.
    const invalid = await request({ headers: { authorization: `Bearer ${alice.id}|wrong` } });
    expect(invalid.statusCode).toBe(429);
    expect(limitHeaders(invalid).limit).toBe(3);
  });

  it('keeps tenants apart: one address has a budget per tenant', async () => {
    for (let i = 0; i < 3; i++) await request({});
    expect((await request({})).statusCode).toBe(429);
    expect((await request({ host: hostOf('demo') })).statusCode).toBe(401);
  });

  it('does not count /health, /ready, /api/openapi.json and /api/docs, and puts no headers on them', async () => {
    for (const url of ['/api/openapi.json', '/api/docs/', '/api/docs/json']) {
      for (let i = 0; i < 5; i++) {
        const answer = await t.app.inject({ method: 'GET', url, headers: { host: hostOf('acme') } });
        expect(answer.statusCode, url).toBe(200);
        expect(answer.headers['x-ratelimit-limit']).toBeUndefined();
      }
    }
    for (let i = 0; i < 10; i++) {
      const health = await t.app.inject({ method: 'GET', url: '/health' });
      expect(health.statusCode).toBe(200);
      expect(health.headers['x-ratelimit-limit']).toBeUndefined();
      expect((await t.app.inject({ method: 'GET', url: '/ready' })).statusCode).toBe(200);
    }
    expect(limitHeaders(await request({})).remaining).toBe(2);
  });

  it('reads the client address from X-Forwarded-For only behind a trusted proxy', async () => {
    const spoof = (ip: string) => request({ headers: { 'x-forwarded-for': ip } });
    for (let i = 0; i < 3; i++) await spoof(`203.0.113.${i}`);
    // Untrusted: every request came from the socket's address, whatever the header said.
    expect((await spoof('203.0.113.99')).statusCode).toBe(429);

    const proxied = await buildTestApp({ RATE_LIMIT_UNAUTHENTICATED: '3', TRUST_PROXY: '127.0.0.1', REDIS_URL: '' });
    try {
      const via = (ip: string) =>
        proxied.app.inject({ method: 'GET', url: '/api/user', headers: { ...JSON_HEADERS, 'x-forwarded-for': ip } });
      for (let i = 0; i < 3; i++) expect((await via('203.0.113.1')).statusCode).toBe(401);
      expect((await via('203.0.113.1')).statusCode).toBe(429);
      expect((await via('203.0.113.2')).statusCode).toBe(401);
      // The first untrusted address counts: a client cannot hide behind a made-up hop.
      expect((await via('203.0.113.1, 127.0.0.1')).statusCode).toBe(429);
    } finally {
      await proxied.close();
    }
  });
});
