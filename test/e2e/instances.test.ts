import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTenantAndUser, freePort, http, runCli, startServer, type ServerProcess } from '../helpers/processes.js';
import { REDIS_URL, testServices, type TestServices } from '../helpers/services.js';
import { sleep } from '../helpers/wait.js';

describe('several instances on one storage', () => {
  let dataDir: string;
  let services: TestServices;
  let env: Record<string, string>;
  const servers: ServerProcess[] = [];

  beforeEach(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'groupadmin-instances-'));
    services = await testServices();
    env = { DATA_DIR: dataDir, LOG_LEVEL: 'info', ...services.env };
    expect((await runCli(['migrate'], env)).status).toBe(0);
    await createTenantAndUser(env);
  });
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.stop()));
    await services.cleanup();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const host = 'acme.localhost';
  const login = (port: number, password = 'a long password') =>
    http(port, {
      method: 'POST',
      path: '/api/login',
      headers: { host, 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ username: 'alice', password }),
    });
  const getUser = (port: number, token: string) =>
    http(port, { path: '/api/user', headers: { host, accept: 'application/json', authorization: `Bearer ${token}` } });

  /** Polls until the token is refused on every port; returns how long that took. */
  async function msUntilRefusedEverywhere(ports: number[], token: string): Promise<number> {
    const started = Date.now();
    for (;;) {
      const statuses = await Promise.all(ports.map(async (port) => (await getUser(port, token)).status));
      if (statuses.every((status) => status === 401)) return Date.now() - started;
      if (Date.now() - started > 5000) throw new Error(`still accepted: ${statuses.join(', ')}`);
      await sleep(20);
    }
  }

  it('two processes: a token of one works on the other, and revocations and edits reach both within a second', async () => {
    const first = await startServer({ ...env, RATE_LIMIT_UNAUTHENTICATED: '1000', RATE_LIMIT_AUTHENTICATED: '1000' });
    const second = await startServer({ ...env, RATE_LIMIT_UNAUTHENTICATED: '1000', RATE_LIMIT_AUTHENTICATED: '1000' });
    servers.push(first, second);
    const ports = [first.port, second.port];

    const issued = await login(first.port);
    expect(issued.status).toBe(200);
    const token = JSON.parse(issued.body).api_key.plainTextToken as string;
    expect((await getUser(second.port, token)).status).toBe(200);

    // Revoked by the CLI (a third process).
    expect((await runCli(['token', 'revoke', 'acme', 'alice', '--id', token.split('|')[0]!], env)).status).toBe(0);
    expect(await msUntilRefusedEverywhere(ports, token)).toBeLessThan(1000);

    // Revoked by a password change.
    const again = JSON.parse((await login(second.port)).body).api_key.plainTextToken as string;
    expect((await getUser(first.port, again)).status).toBe(200);
    expect((await runCli(['user', 'passwd', 'acme', 'alice', '--password-stdin'], env, 'another long password\n')).status).toBe(0);
    expect(await msUntilRefusedEverywhere(ports, again)).toBeLessThan(1000);
    const third = JSON.parse((await login(first.port, 'another long password')).body).api_key.plainTextToken as string;
    expect((await getUser(second.port, third)).status).toBe(200);

    // A profile edit through the API on one instance shows on the other within a second.
    const json = { host, accept: 'application/json', 'content-type': 'application/json', authorization: `Bearer ${third}` };
    const edited = await http(first.port, { method: 'PATCH', path: '/api/user', headers: json, body: JSON.stringify({ firstname: 'Renamed' }) });
    expect(edited.status).toBe(200);
    const editedAt = Date.now();
    while (JSON.parse((await getUser(second.port, third)).body).firstname !== 'Renamed') {
      expect(Date.now() - editedAt).toBeLessThan(1000);
      await sleep(20);
    }

    // A logout through the API on one instance: refused on the other within a second.
    expect((await http(first.port, { method: 'POST', path: '/api/logout', headers: json, body: '{}' })).status).toBe(200);
    expect(await msUntilRefusedEverywhere(ports, third)).toBeLessThan(1000);
  });

  it.runIf(REDIS_URL)('two processes on one Redis share one rate-limit budget', async () => {
    const first = await startServer({ ...env, RATE_LIMIT_UNAUTHENTICATED: '4' });
    const second = await startServer({ ...env, RATE_LIMIT_UNAUTHENTICATED: '4' });
    servers.push(first, second);
    const statuses = [];
    for (const port of [first.port, second.port, first.port, second.port, first.port, second.port]) {
      statuses.push((await http(port, { path: '/api/user', headers: { host, accept: 'application/json' } })).status);
    }
    expect(statuses).toEqual([401, 401, 401, 401, 429, 429]);
  });

  it('WORKERS=2: two worker processes on one port keep one exact count', async () => {
    const port = await freePort();
    const server = await startServer({ ...env, PORT: String(port), WORKERS: '2', RATE_LIMIT_UNAUTHENTICATED: '10' });
    servers.push(server);
    expect(server.port).toBe(port);
    // Wait until both workers listen (each logs it), so requests really spread over both.
    for (let i = 0; i < 100 && (server.output().match(/Server listening/g) ?? []).length < 2; i++) await sleep(50);

    const answers = [];
    for (let i = 0; i < 14; i++) {
      const response = await http(port, { path: '/api/user', headers: { host, accept: 'application/json', connection: 'close' } });
      answers.push(`${response.status}/${String(response.headers['x-ratelimit-remaining'])}`);
    }
    expect(answers).toEqual([
      '401/9', '401/8', '401/7', '401/6', '401/5', '401/4', '401/3', '401/2', '401/1', '401/0',
      '429/0', '429/0', '429/0', '429/0',
    ]);
    // Both workers answered: their request logs carry two different process ids (log lines are
    // written in batches, so wait for them).
    const requestLines = () => server.output().split('\n').filter((line) => line.includes('"path":"/api/user"'));
    for (let i = 0; i < 40 && requestLines().length < 14; i++) await sleep(100);
    const pids = new Set(
      server
        .output()
        .split('\n')
        .filter((line) => line.includes('"path":"/api/user"'))
        .map((line) => JSON.parse(line).pid as number),
    );
    expect(pids.size).toBe(2);
    expect(await server.stop('SIGTERM')).toBe(0);
  });
});
