import { afterEach, describe, expect, it } from 'vitest';
import { buildTestApp, hostOf, JSON_HEADERS, PASSWORD, type TestApp } from '../helpers/app.js';
import { capturingLogger } from '../helpers/logs.js';

describe('response headers', () => {
  let t: TestApp | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it('sends the security headers of a JSON API on answers and errors, and no X-Powered-By', async () => {
    t = await buildTestApp();
    for (const url of ['/api/user', '/api/nowhere', '/health']) {
      const response = await t.app.inject({ method: 'GET', url, headers: JSON_HEADERS });
      expect(response.headers['content-security-policy'], url).toBe("default-src 'none';frame-ancestors 'none'");
      expect(response.headers['x-content-type-options']).toBe('nosniff');
      expect(response.headers['x-frame-options']).toBe('SAMEORIGIN');
      expect(response.headers['strict-transport-security']).toBe('max-age=31536000; includeSubDomains');
      expect(response.headers['referrer-policy']).toBe('no-referrer');
      expect(response.headers['x-powered-by']).toBeUndefined();
      expect(response.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    }
  });

  it('keeps CORS off unless CORS_ORIGINS lists origins', async () => {
    t = await buildTestApp();
    const plain = await t.app.inject({ method: 'GET', url: '/api/user', headers: { ...JSON_HEADERS, origin: 'https://evil.example' } });
    expect(plain.headers['access-control-allow-origin']).toBeUndefined();
    const preflight = await t.app.inject({
      method: 'OPTIONS',
      url: '/api/login',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
    });
    expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
    await t.close();

    t = await buildTestApp({ CORS_ORIGINS: 'https://app.example.org' });
    const allowed = await t.app.inject({
      method: 'OPTIONS',
      url: '/api/login',
      headers: { origin: 'https://app.example.org', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
    });
    expect(allowed.statusCode).toBe(204);
    expect(allowed.headers['access-control-allow-origin']).toBe('https://app.example.org');
    const get = await t.app.inject({ method: 'GET', url: '/api/user', headers: { ...JSON_HEADERS, origin: 'https://app.example.org' } });
    expect(get.headers['access-control-allow-origin']).toBe('https://app.example.org');
    expect(String(get.headers['access-control-expose-headers'])).toContain('X-RateLimit-Remaining');
    const other = await t.app.inject({ method: 'GET', url: '/api/user', headers: { ...JSON_HEADERS, origin: 'https://evil.example' } });
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
    // A catch-all preflight route must not turn unknown paths into 405s.
    expect((await t.app.inject({ method: 'GET', url: '/api/nowhere', headers: JSON_HEADERS })).statusCode).toBe(404);
  });

  it('accepts a plain X-Request-Id from the caller and replaces anything else', async () => {
    t = await buildTestApp();
    const given = await t.app.inject({ method: 'GET', url: '/health', headers: { 'x-request-id': 'abc-123' } });
    expect(given.headers['x-request-id']).toBe('abc-123');
    const hostile = await t.app.inject({ method: 'GET', url: '/health', headers: { 'x-request-id': 'a"b\\n{}' } });
    expect(hostile.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('logs', () => {
  it('have one line per request and never a credential, password, token or token hash', async () => {
    const logs = capturingLogger('info');
    const t = await buildTestApp({}, { logger: logs.logger });
    try {
      await t.addUser('demo', { username: 'alice' });
      const call = (method: string, url: string, token?: string, payload?: unknown) =>
        t.app.inject({
          method: method as 'GET',
          url: `${url}?password=${encodeURIComponent(PASSWORD)}`,
          headers: { ...JSON_HEADERS, host: hostOf('demo'), ...(token ? { authorization: `Bearer ${token}` } : {}) },
          ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
        });
      const login = (await call('POST', '/api/login', undefined, { username: 'alice', password: PASSWORD })).json();
      const token = login.api_key.plainTextToken as string;
      await call('POST', '/api/login', undefined, { username: 'alice', password: 'wrong-password-123' });
      await call('GET', '/api/user', token);
      const created = (await call('POST', '/api/tokens', token, { name: 'app' })).json().data;
      await call('DELETE', `/api/tokens/${created.accessToken.id}`, token);
      await call('PUT', '/api/user/password', token, { current_password: PASSWORD, password: 'new password 42', password_confirmation: 'new password 42' });
      await call('GET', '/api/user', 'bogus|token');

      const requestLines = logs.lines().filter((line) => line.msg === 'request');
      expect(requestLines).toHaveLength(7);
      for (const line of requestLines) {
        expect(line).toMatchObject({ reqId: expect.any(String), method: expect.any(String), status: expect.any(Number), ms: expect.any(Number) });
        expect(String(line.path)).not.toContain('?');
      }
      expect(requestLines.map((line) => line.route)).toEqual([
        '/api/login', '/api/login', '/api/user', '/api/tokens', '/api/tokens/:id', '/api/user/password', '/api/user',
      ]);

      const everything = logs.text();
      const rows = await t.storage.tenantDb('demo').selectFrom('personal_access_tokens').select('token').execute();
      const secrets = [
        PASSWORD, 'wrong-password-123', 'new password 42', encodeURIComponent(PASSWORD),
        token, token.split('|')[1]!, created.plainTextToken, created.plainTextToken.split('|')[1],
        ...rows.map((row) => row.token),
        'authorization', 'Bearer',
      ];
      for (const secret of secrets) expect(everything.toLowerCase()).not.toContain(String(secret).toLowerCase());
    } finally {
      await t.close();
    }
  });

  it('log the first 1,000 characters of a long path', async () => {
    const logs = capturingLogger('info');
    const t = await buildTestApp({}, { logger: logs.logger });
    try {
      const long = `/api/${'a'.repeat(8_000)}`;
      const answer = await t.app.inject({ method: 'GET', url: `${long}?x=1`, headers: { ...JSON_HEADERS, host: hostOf('demo') } });
      expect(answer.statusCode).toBe(404);
      const [line] = logs.lines().filter((entry) => entry.msg === 'request');
      expect(line?.path).toBe(`${long.slice(0, 1_000)}...`);
      expect(JSON.stringify(line).length).toBeLessThan(1_500);
    } finally {
      await t.close();
    }
  });
});
