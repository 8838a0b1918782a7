import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { Agent } from 'node:http';
import { execFileSync } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTenantAndUser, http, runCli, startServer, type ServerProcess } from '../helpers/processes.js';
import { testServices, type TestServices } from '../helpers/services.js';
import { sleep, waitFor } from '../helpers/wait.js';

describe('the server process under faults and abuse', () => {
  let dataDir: string;
  let services: TestServices;
  let env: Record<string, string>;
  let server: ServerProcess | undefined;

  beforeEach(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'groupadmin-process-'));
    services = await testServices();
    env = { DATA_DIR: dataDir, LOG_LEVEL: 'info', RATE_LIMIT_UNAUTHENTICATED: '100000', RATE_LIMIT_AUTHENTICATED: '100000', ...services.env };
  });
  afterEach(async () => {
    await server?.stop('SIGKILL');
    server = undefined;
    await services.cleanup();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const addAlice = () => createTenantAndUser(env);

  /**
   * Waits until the server holds at least `count` connections and has read every byte sent on
   * them (nothing unacknowledged on the client's sockets, nothing unread on the server's), as
   * `ss` shows: on a slow machine a fixed pause was not always enough for the requests to arrive.
   */
  const sockets = (filter: string) =>
    execFileSync('ss', ['-tnH', 'state', 'established', filter], { encoding: 'utf8' }).trim().split('\n').filter(Boolean);
  const untilServerHasRead = async (port: number, count: number) => {
    for (const started = Date.now(); Date.now() - started < 20_000; await sleep(20)) {
      let serverSide: string[];
      let clientSide: string[];
      try {
        // The client's side first: once nothing is unacknowledged there, nothing can arrive at
        // the server's side after it is listed.
        clientSide = sockets(`( dport = :${port} )`);
        serverSide = sockets(`( sport = :${port} )`);
      } catch (err) {
        // Without iproute2's ss (a minimal image), a pause as long as the slowest machine needed.
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
        return sleep(1000);
      }
      // Columns: Recv-Q, Send-Q. A byte the client sent and the server's kernel has not yet
      // acknowledged (a busy machine defers loopback delivery) is in neither receive queue.
      const queued = (lines: string[], column: number) => lines.filter((line) => Number(line.trim().split(/\s+/)[column]) > 0);
      if (serverSide.length >= count && queued(serverSide, 0).length === 0 && queued(clientSide, 1).length === 0) return;
    }
    throw new Error(`the server did not read ${count} requests within 20 s`);
  };
  const login = (port: number, agent?: Agent, onSent?: () => void) =>
    http(port, {
      method: 'POST',
      path: '/api/login',
      headers: { host: 'acme.localhost', 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ username: 'alice', password: 'a long password' }),
      ...(agent ? { agent } : {}),
      ...(onSent ? { onSent } : {}),
    });

  it('maintenance mode: every /api request is 503 within a second of `down`, /health stays 200', async () => {
    await addAlice();
    server = await startServer(env);
    const port = server.port;
    expect((await runCli(['down', '--retry', '120', '--message', 'Back at noon.'], env)).status).toBe(0);
    const downAt = Date.now();
    let answer = await http(port, { path: '/api/user', headers: { accept: 'application/json' } });
    while (answer.status !== 503 && Date.now() - downAt < 2000) {
      await sleep(50);
      answer = await http(port, { path: '/api/user', headers: { accept: 'application/json' } });
    }
    expect(Date.now() - downAt).toBeLessThan(1000);
    expect(answer.body).toBe('{"success":false,"message":"Back at noon."}');
    expect(answer.headers['retry-after']).toBe('120');
    expect((await login(port)).status).toBe(503);
    expect((await http(port, { path: '/health' })).status).toBe(200);

    expect((await runCli(['up'], env)).status).toBe(0);
    const upAt = Date.now();
    while ((await login(port)).status !== 200) {
      expect(Date.now() - upAt).toBeLessThan(1000);
      await sleep(50);
    }
    expect((await runCli(['down'], env)).status).toBe(0);
    await sleep(700);
    const plain = await http(port, { path: '/api/user' });
    expect(plain.body).toBe('{"success":false,"message":"Service Unavailable"}');
    expect(plain.headers['retry-after']).toBeUndefined();
  });

  it('cuts off a slowloris client and keeps answering others; refuses huge headers and excess connections', async () => {
    server = await startServer({ ...env, HEADERS_TIMEOUT_MS: '1000', MAX_CONNECTIONS: '20' });
    const port = server.port;
    const slow: Socket = connect(port, '127.0.0.1');
    let closedAfterMs = -1;
    const opened = Date.now();
    slow.on('close', () => (closedAfterMs = Date.now() - opened));
    slow.on('error', () => undefined);
    slow.write('GET /api/user HTTP/1.1\r\nHost: localhost\r\n');
    const trickle = setInterval(() => slow.writable && slow.write('X-Slow: 1\r\n'), 200);
    try {
      for (let i = 0; i < 5; i++) {
        expect((await http(port, { path: '/health' })).status).toBe(200);
        await sleep(100);
      }
      for (let i = 0; i < 40 && closedAfterMs < 0; i++) await sleep(100);
      expect(closedAfterMs).toBeGreaterThan(0);
      expect(closedAfterMs).toBeLessThan(3500);
    } finally {
      clearInterval(trickle);
      slow.destroy();
    }

    const huge = await http(port, { path: '/health', headers: { 'x-big': 'x'.repeat(20_000) } }).catch((err: Error) => err);
    expect(huge instanceof Error ? 431 : huge.status).toBe(431);

    // Beyond MAX_CONNECTIONS, a new connection is closed at once.
    const idle: Socket[] = [];
    for (let i = 0; i < 20; i++) {
      const socket = connect(port, '127.0.0.1');
      socket.on('error', () => undefined);
      idle.push(socket);
    }
    await sleep(300);
    const extra = connect(port, '127.0.0.1');
    const extraClosed = await new Promise<boolean>((resolve) => {
      extra.on('close', () => resolve(true));
      extra.on('error', () => resolve(true));
      setTimeout(() => resolve(false), 2000);
    });
    expect(extraClosed).toBe(true);
    for (const socket of idle) socket.destroy();
    await sleep(300);
    expect((await http(port, { path: '/health' })).status).toBe(200);
  });

  it('answers every one of 50 requests in flight when SIGTERM arrives, then exits 0', async () => {
    await addAlice();
    // A bound no slow machine reaches: what is tested is that nothing in flight is dropped.
    server = await startServer({ ...env, SHUTDOWN_TIMEOUT_MS: '120000' });
    // One login first, so that the API description every answer is checked against is fetched
    // before the server is told to stop.
    expect((await login(server.port)).status).toBe(200);
    const agent = new Agent({ keepAlive: true, maxSockets: 50 });
    let sent = 0;
    let answered = 0;
    const inFlight = Promise.allSettled(
      Array.from({ length: 50 }, () => login(server!.port, agent, () => sent++).finally(() => answered++)),
    );
    // Until all 50 requests are sent and the server has read them (a connection whose request
    // it has not read yet is idle, and a stopping server closes idle connections; a request
    // written after that is answered with a reset). Far too short for 50 password hashes.
    await waitFor(() => sent === 50, 20_000, 5);
    await untilServerHasRead(server.port, 50);
    // Else the test would prove nothing about requests in flight.
    expect(answered).toBeLessThan(50);
    const exit = server.stop('SIGTERM');
    const answers = await inFlight;
    for (const answer of answers) {
      expect(answer.status, answer.status === 'rejected' ? String((answer as PromiseRejectedResult).reason) : '').toBe('fulfilled');
      const { status, body } = (answer as PromiseFulfilledResult<{ status: number; body: string }>).value;
      expect(status).toBe(200);
      expect(JSON.parse(body).api_key.plainTextToken).toMatch(/^\d+\|/);
    }
    expect(await exit).toBe(0);
    agent.destroy();
    // The hashing threads are niced: 50 hashes took 35 s while two other processes kept both
    // cores busy (3 s on an idle machine).
  }, 180_000);

  it('loses no committed token and leaves no half-written row when killed during a burst of logins', async () => {
    // SQLite's crash safety is what is tested here, whatever the run's DATABASE_URL.
    env = { ...env, DATABASE_URL: '' };
    await addAlice();
    server = await startServer(env);
    const port = server.port;
    const issued: string[] = [];
    const burst = Array.from({ length: 200 }, async (_, i) => {
      await sleep(i * 3);
      try {
        const response = await login(port);
        if (response.status === 200) issued.push(JSON.parse(response.body).api_key.plainTextToken as string);
      } catch {
        // Cut off by the kill: this one was never answered.
      }
    });
    while (issued.length < 10) await sleep(10);
    await server.stop('SIGKILL');
    server = undefined;
    await Promise.all(burst);
    expect(issued.length).toBeGreaterThanOrEqual(10);

    const db = new BetterSqlite3(join(dataDir, 'tenants', 'acme.sqlite'));
    try {
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
      const rows = db.prepare('select * from personal_access_tokens').all() as Record<string, unknown>[];
      for (const row of rows) {
        for (const column of ['tokenable_type', 'tokenable_id', 'name', 'token', 'abilities', 'created_at', 'updated_at']) {
          expect(row[column], column).not.toBeNull();
        }
      }
      const byId = new Map(rows.map((row) => [Number(row.id), row.token]));
      for (const plain of issued) {
        const [id, secret] = plain.split('|') as [string, string];
        expect(byId.get(Number(id))).toBe(createHash('sha256').update(secret).digest('hex'));
      }
    } finally {
      db.close();
    }
    // And the service starts again on the same files.
    server = await startServer(env);
    expect((await login(server.port)).status).toBe(200);
  });
});
