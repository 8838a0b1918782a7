import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testServices, type TestServices } from '../helpers/services.js';
import { http, startServer, type ServerProcess } from '../helpers/processes.js';

describe('rate limit over real HTTP with the default limits', () => {
  let dataDir: string;
  let server: ServerProcess;
  let services: TestServices;
  beforeAll(async () => {
    services = await testServices();
    dataDir = mkdtempSync(join(tmpdir(), 'groupadmin-e2e-rl-'));
    server = await startServer({ DATA_DIR: dataDir, LOG_LEVEL: 'info', ...services.env });
  });
  afterAll(async () => {
    await server?.stop();
    await services.cleanup();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const failedLogin = () =>
    http(server.port, {
      method: 'POST',
      path: '/api/login',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ username: 'admin', password: 'not the password' }),
    });

  it('answers the 11th failed login in a minute with 429 and every header', async () => {
    const resets = new Set<string>();
    for (let attempt = 1; attempt <= 10; attempt++) {
      const response = await failedLogin();
      expect(response.status, `attempt ${attempt}`).toBe(401);
      expect(response.headers['x-ratelimit-limit']).toBe('10');
      expect(response.headers['x-ratelimit-remaining']).toBe(String(10 - attempt));
      resets.add(String(response.headers['x-ratelimit-reset']));
    }
    const eleventh = await failedLogin();
    const nowSeconds = Math.floor(Date.now() / 1000);
    expect(eleventh.status).toBe(429);
    expect(eleventh.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(eleventh.headers['x-ratelimit-limit']).toBe('10');
    expect(eleventh.headers['x-ratelimit-remaining']).toBe('0');
    resets.add(String(eleventh.headers['x-ratelimit-reset']));
    expect(resets.size).toBe(1);

    const reset = Number(eleventh.headers['x-ratelimit-reset']);
    const retryAfter = Number(eleventh.headers['retry-after']);
    expect(JSON.parse(eleventh.body)).toEqual({ message: 'Too Many Attempts.', retry_after: retryAfter });
    // Retry-After is the whole seconds from now to the announced reset (the clock may tick once meanwhile).
    expect(Math.abs(retryAfter - (reset - nowSeconds))).toBeLessThanOrEqual(1);
    expect(retryAfter).toBeGreaterThan(50);
    expect(retryAfter).toBeLessThanOrEqual(61);

    // Health checks are never counted.
    expect((await http(server.port, { path: '/health' })).status).toBe(200);
  });
});
