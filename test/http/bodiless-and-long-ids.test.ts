import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, hostOf, PASSWORD, type TestApp } from '../helpers/app.js';

const UNAUTHENTICATED = '{"message":"Unauthenticated."}';

/**
 * Two ways clients met the framework instead of the API: an operation that takes no body refused a
 * client's default `Content-Type: text/plain` with 415, and a path id over 100 characters got the
 * router's own 414 body, before authentication and without the rate-limit headers.
 */
describe('operations without a body, and path ids of any length', () => {
  let t: TestApp;
  let token: string;
  beforeAll(async () => {
    t = await buildTestApp();
    await t.addUser('demo', { username: 'alice' });
    token = await t.login('demo', 'alice', PASSWORD);
  });
  afterAll(() => t?.close());

  const call = (method: 'GET' | 'POST' | 'DELETE', url: string, headers: Record<string, string>, payload?: string) =>
    t.app.inject({ method, url, headers: { host: hostOf('demo'), accept: 'application/json', ...headers }, ...(payload === undefined ? {} : { payload }) });
  const bearer = () => ({ authorization: `Bearer ${token}` });

  it('ignores the Content-Type and body of a DELETE', async () => {
    for (const [contentType, payload] of [['text/plain', ''], ['text/plain;charset=UTF-8', 'hello'], ['application/xml', '<x/>'], ['application/json', '{broken']] as const) {
      const answer = await call('DELETE', '/api/tokens/999999', { ...bearer(), 'content-type': contentType }, payload);
      expect(answer.statusCode, `${contentType}: ${answer.body}`).toBe(404);
      expect(answer.json()).toEqual({ success: false, message: 'Token not found.' });
    }
    const all = await call('DELETE', '/api/tokens', { ...bearer(), 'content-type': 'text/plain' }, 'x');
    expect(all.statusCode, all.body).toBe(200);
  });

  it('ignores the Content-Type and body of POST /logout', async () => {
    const own = await t.login('demo', 'alice', PASSWORD);
    const answer = await call('POST', '/api/logout', { authorization: `Bearer ${own}`, 'content-type': 'text/plain' }, 'bye');
    expect(answer.statusCode, answer.body).toBe(200);
    expect((await call('GET', '/api/user', { authorization: `Bearer ${own}` })).statusCode).toBe(401);
  });

  it('ignores the Content-Type and body of POST /webhooks/{id}/test', async () => {
    const answer = await call('POST', '/api/webhooks/999999/test', { ...bearer(), 'content-type': 'text/plain' }, 'ping');
    expect(answer.statusCode, answer.body).not.toBe(415);
    expect(answer.json()).toEqual({ success: false, message: 'This action is unauthorized.' });
  });

  it('still refuses a body that is not JSON where an operation reads one (415)', async () => {
    const answer = await call('POST', '/api/tokens', { ...bearer(), 'content-type': 'text/plain' }, 'name=x');
    expect(answer.statusCode).toBe(415);
  });

  it('answers a path id of any length like an unknown id: 401 without a token, else 404, with the rate-limit headers', async () => {
    for (const id of ['9'.repeat(101), 'a'.repeat(300), '1'.repeat(5000)]) {
      const anonymous = await call('GET', `/api/groups/${id}`, {});
      expect(anonymous.statusCode, id.slice(0, 10)).toBe(401);
      expect(anonymous.body).toBe(UNAUTHENTICATED);
      expect(anonymous.headers['x-ratelimit-limit']).toBeDefined();
      const known = await call('GET', `/api/groups/${id}`, bearer());
      expect(known.statusCode).toBe(404);
      expect(known.json()).toEqual({ success: false, message: 'Group not found.' });
      expect(known.headers['x-ratelimit-remaining']).toBeDefined();
      const deleted = await call('DELETE', `/api/tokens/${id}`, bearer());
      expect(deleted.statusCode).toBe(404);
    }
  });

  it('keeps the connection usable after a DELETE whose body was not read (real HTTP, keep-alive)', async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.server.address() as AddressInfo;
    const { Agent } = await import('node:http');
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const send = (method: string, path: string, body: string, contentType?: string) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const headers: Record<string, string | number> = { host: hostOf('demo'), accept: 'application/json', ...bearer(), 'content-length': Buffer.byteLength(body) };
        if (contentType) headers['content-type'] = contentType;
        const req = request({ host: '127.0.0.1', port, method, path, agent, headers }, (res) => {
          let text = '';
          res.on('data', (chunk: Buffer) => (text += chunk.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        });
        req.on('error', reject);
        req.end(body);
      });
    const deleted = await send('DELETE', '/api/tokens/999999', 'x'.repeat(10_000), 'text/plain');
    expect(deleted.status, deleted.body).toBe(404);
    const after = await send('GET', '/api/user', '');
    expect(after.status, after.body).toBe(200);
    agent.destroy();
  });
});
