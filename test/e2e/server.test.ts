import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenantAndUser, http, runCli, startServer, type ServerProcess } from '../helpers/processes.js';
import { testServices, type TestServices } from '../helpers/services.js';

describe('the built server over real HTTP', () => {
  let dataDir: string;
  let server: ServerProcess;
  let env: Record<string, string>;
  let services: TestServices;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'groupadmin-e2e-'));
    services = await testServices();
    env = { DATA_DIR: dataDir, LOG_LEVEL: 'info', RATE_LIMIT_UNAUTHENTICATED: '1000', ...services.env };
    server = await startServer(env);
  });
  afterAll(async () => {
    await server?.stop();
    await services.cleanup();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const json = (body: string) => JSON.parse(body) as Record<string, unknown>;

  it('prints a working curl login for the first start, and only once', async () => {
    await new Promise((resolve) => setTimeout(resolve, 100));
    const match = /curl -s -X POST (http:\/\/[^ ]+)\/api\/login .* -d '(\{.*\})'/.exec(server.output());
    expect(match, server.output()).not.toBeNull();
    expect(match![1]).toBe(`http://127.0.0.1:${server.port}`);
    const response = await http(server.port, {
      method: 'POST',
      path: '/api/login',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: match![2],
    });
    expect(response.status).toBe(200);
    expect(json(response.body).data).toMatchObject({ username: 'admin' });
    // The first-start user administers the tenant: it may build the tree.
    const token = (json(response.body).api_key as { plainTextToken: string }).plainTextToken;
    const authorized = { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${token}` };
    const root = JSON.parse((await http(server.port, { path: '/api/groups', headers: authorized })).body).data.groups[0];
    const troop = await http(server.port, { method: 'POST', path: '/api/groups', headers: authorized, body: JSON.stringify({ parent_id: root.id, name: 'Troop' }) });
    expect(troop.status).toBe(201);

    await server.stop();
    server = await startServer(env);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(server.output()).not.toContain('curl');
  });

  it('gives the tenant of the first start the time zone TZ names', async () => {
    // A storage of its own: a first start happens only where there is no tenant yet.
    const ownDir = mkdtempSync(join(tmpdir(), 'groupadmin-e2e-tz-'));
    const own = await testServices();
    const zoned = await startServer({ ...env, ...own.env, DATA_DIR: ownDir, TZ: ':Europe/Zurich' });
    try {
      await new Promise((resolve) => setTimeout(resolve, 100));
      const body = /-d '(\{.*\})'/.exec(zoned.output())![1]!;
      const login = await http(zoned.port, { method: 'POST', path: '/api/login', headers: { 'content-type': 'application/json', accept: 'application/json' }, body });
      const token = (json(login.body).api_key as { plainTextToken: string }).plainTextToken;
      const tenant = await http(zoned.port, { path: '/api/tenant', headers: { accept: 'application/json', authorization: `Bearer ${token}` } });
      expect(JSON.parse(tenant.body).data.tenant).toEqual({ slug: 'demo', name: 'Demo', timezone: 'Europe/Zurich', locale: 'en' });
    } finally {
      await zoned.stop();
      await own.cleanup();
      rmSync(ownDir, { recursive: true, force: true });
    }
  });

  it('drives login -> user -> revoke -> 401 for a tenant made with the CLI', async () => {
    await createTenantAndUser(env);
    const host = 'acme.localhost';

    const login = await http(server.port, {
      method: 'POST',
      path: '/api/login',
      headers: { host, 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ username: 'alice', password: 'a long password' }),
    });
    expect(login.status).toBe(200);
    expect(login.headers['content-type']).toBe('application/json; charset=utf-8');
    const token = (json(login.body).api_key as { plainTextToken: string }).plainTextToken;
    const tokenId = token.split('|')[0]!;

    const user = await http(server.port, {
      path: '/api/user',
      headers: { host, authorization: `Bearer ${token}`, accept: 'application/json' },
    });
    expect(user.status).toBe(200);
    expect(json(user.body)).toMatchObject({ username: 'alice', email: 'alice@example.com', city: null });

    // Without Accept: application/json, a GET still answers; only unsafe methods get 419.
    const userNoAccept = await http(server.port, { path: '/api/user', headers: { host, authorization: `Bearer ${token}` } });
    expect(userNoAccept.status).toBe(200);

    // The same token on another tenant's host is unknown there.
    const elsewhere = await http(server.port, {
      path: '/api/user',
      headers: { host: 'localhost', authorization: `Bearer ${token}`, accept: 'application/json' },
    });
    expect(elsewhere.status).toBe(401);

    expect((await runCli(['token', 'revoke', 'acme', 'alice', '--id', tokenId], env)).status).toBe(0);
    // A revocation by another process takes effect within a second.
    const revokedAt = Date.now();
    const ask = () => http(server.port, { path: '/api/user', headers: { host, authorization: `Bearer ${token}`, accept: 'application/json' } });
    let revoked = await ask();
    while (revoked.status === 200 && Date.now() - revokedAt < 1000) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      revoked = await ask();
    }
    expect(revoked.status).toBe(401);
    expect(revoked.body).toBe('{"message":"Unauthenticated."}');

    // A failed login: 401 when JSON is asked for, 419 when it is not.
    const failedJson = await http(server.port, {
      method: 'POST',
      path: '/api/login',
      headers: { host, 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ username: 'alice', password: 'wrong' }),
    });
    expect(failedJson.status).toBe(401);
    expect(failedJson.body).toBe('{"success":false,"message":"Login Fail, pls check password"}');
    const failedForm = await http(server.port, {
      method: 'POST',
      path: '/api/login',
      headers: { host, 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'alice', password: 'wrong' }),
    });
    expect(failedForm.status).toBe(419);
    expect(failedForm.body).toBe('{"success":false,"message":"CSRF token mismatch."}');
  });

  it('drives the token lifecycle: a read-only token reads, cannot manage tokens, and is revoked', async () => {
    const host = 'acme.localhost';
    const request = (method: string, path: string, token?: string, body?: object) =>
      http(server.port, {
        method,
        path,
        headers: {
          host,
          accept: 'application/json',
          ...(body ? { 'content-type': 'application/json' } : {}),
          ...(token ? { authorization: `Bearer ${token}` } : {}),
        },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
    const login = await request('POST', '/api/login', undefined, { username: 'alice', password: 'a long password' });
    const main = JSON.parse(login.body).api_key.plainTextToken as string;

    const created = await request('POST', '/api/tokens', main, { name: 'wall display', abilities: ['user:read'] });
    expect(created.status).toBe(201);
    const { plainTextToken: reader, accessToken } = JSON.parse(created.body).data;

    expect((await request('GET', '/api/user', reader)).status).toBe(200);
    const forbidden = await request('POST', '/api/tokens', reader, { name: 'escalate' });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body).toBe('{"success":false,"message":"Invalid ability provided."}');

    expect((await request('DELETE', `/api/tokens/${accessToken.id}`, main)).status).toBe(204);
    const revoked = await request('GET', '/api/user', reader);
    expect(revoked.status).toBe(401);
    expect(revoked.body).toBe('{"message":"Unauthenticated."}');
    expect((await request('GET', '/api/user', main)).status).toBe(200);
  });

  it('stops on SIGTERM with exit status 0', async () => {
    expect(await server.stop('SIGTERM')).toBe(0);
  });

  it('refuses to start on a bad setting with one line naming it', async () => {
    await expect(startServer({ ...env, PORT: 'eighty' })).rejects.toThrow(/PORT must be an integer/);
  });
});
