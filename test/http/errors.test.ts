import { errors } from '../../src/errors.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, JSON_HEADERS, type TestApp } from '../helpers/app.js';

describe('error answers', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp({ BODY_LIMIT: '2048' });
  });
  afterEach(() => t.close());

  it('404 names the unknown route under /api', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/api/users/7?page=2', headers: JSON_HEADERS });
    expect(response.statusCode).toBe(404);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(response.body).toBe('{"success":false,"message":"The route api/users/7 could not be found."}');
  });

  it('405 names the method and the supported ones, with an Allow header', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/api/login', headers: JSON_HEADERS });
    expect(response.statusCode).toBe(405);
    expect(response.headers.allow).toBe('POST');
    expect(response.body).toBe(
      '{"success":false,"message":"The GET method is not supported for route api/login. Supported methods: POST."}',
    );
    const onUser = await t.app.inject({ method: 'POST', url: '/api/user', headers: JSON_HEADERS });
    expect(onUser.statusCode).toBe(405);
    expect(onUser.headers.allow).toBe('GET, HEAD, PATCH');
  });

  it('400 for a malformed JSON body', async () => {
    for (const payload of ['{"username":', '{bad}', '{"a":1}}']) {
      const response = await t.app.inject({ method: 'POST', url: '/api/login', headers: JSON_HEADERS, payload });
      expect(response.statusCode).toBe(400);
      expect(response.body).toBe('{"success":false,"message":"Malformed JSON body."}');
    }
  });

  it('413 for a body above BODY_LIMIT', async () => {
    const payload = JSON.stringify({ username: 'a', password: 'x'.repeat(4096) });
    const response = await t.app.inject({ method: 'POST', url: '/api/login', headers: JSON_HEADERS, payload });
    expect(response.statusCode).toBe(413);
    expect(response.json()).toEqual({ success: false, message: expect.any(String) });
  });

  it('415 for a body that is not JSON', async () => {
    for (const contentType of ['application/x-www-form-urlencoded', 'text/plain', 'multipart/form-data; boundary=x']) {
      const response = await t.app.inject({
        method: 'POST',
        url: '/api/login',
        headers: { 'content-type': contentType, accept: 'application/json' },
        payload: 'username=a&password=b',
      });
      expect(response.statusCode, contentType).toBe(415);
      expect(response.json()).toEqual({ success: false, message: expect.any(String) });
    }
  });

  it('500 hides the cause and says only "Server Error"', async () => {
    const failing = await buildTestApp({}, {}, (app) =>
      app.get('/api-boom', async () => {
        throw new Error('secret detail at /srv/app/db.ts:42');
      }),
    );
    try {
      const response = await failing.app.inject({ method: 'GET', url: '/api-boom', headers: JSON_HEADERS });
      expect(response.statusCode).toBe(500);
      expect(response.body).toBe('{"success":false,"message":"Server Error"}');
    } finally {
      await failing.close();
    }
  });

  it('419 also for a role refusal (403 "This action is unauthorized.") without a token, asking for JSON only then', async () => {
    const refusing = await buildTestApp({}, {}, (app) =>
      app.post('/api-refuse', async () => {
        throw errors.unauthorized();
      }),
    );
    try {
      const browserLike = await refusing.app.inject({ method: 'POST', url: '/api-refuse', headers: { accept: 'text/html' } });
      expect(browserLike.statusCode).toBe(419);
      expect(browserLike.body).toBe('{"success":false,"message":"CSRF token mismatch."}');
      const client = await refusing.app.inject({ method: 'POST', url: '/api-refuse', headers: { accept: 'application/json' } });
      expect(client.statusCode).toBe(403);
      expect(client.body).toBe('{"success":false,"message":"This action is unauthorized."}');
    } finally {
      await refusing.close();
    }
  });

  it('404 for an unknown tenant, before anything else', async () => {
    for (const host of ['nobody.localhost', 'www.localhost', 'a.b.localhost', 'acme.example.org']) {
      const response = await t.app.inject({ method: 'GET', url: '/api/user', headers: { ...JSON_HEADERS, host } });
      expect(response.statusCode, host).toBe(404);
      expect(response.body).toBe('{"success":false,"message":"Tenant not found."}');
    }
  });

  it('serves /health and /ready on any host', async () => {
    for (const host of ['nobody.localhost', 'localhost', 'x.example.org']) {
      expect((await t.app.inject({ method: 'GET', url: '/health', headers: { host } })).statusCode).toBe(200);
      expect((await t.app.inject({ method: 'GET', url: '/ready', headers: { host } })).statusCode).toBe(200);
    }
  });

  it('never answers a stack trace', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/login',
      headers: JSON_HEADERS,
      payload: '{"username": "\\ud800", "password": {"__proto__": {"x": 1}}}',
    });
    expect(response.statusCode).toBe(422);
    expect(response.body).not.toMatch(/at .*\.(ts|js):\d+/);
  });
});
