import { renameSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { buildTestApp, hostOf, JSON_HEADERS, PASSWORD, type TestApp } from '../helpers/app.js';
import { DATABASE_URL } from '../helpers/services.js';
import { sleep } from '../helpers/wait.js';

const UNAVAILABLE = '{"success":false,"message":"Service Unavailable"}';
describe('storage faults', () => {
  let t: TestApp | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  const getUser = (app: TestApp, token: string, tenant = 'demo') =>
    app.app.inject({ method: 'GET', url: '/api/user', headers: { ...JSON_HEADERS, host: hostOf(tenant), authorization: `Bearer ${token}` } });

  async function expectRecoveryWithin(ms: number, check: () => Promise<boolean>) {
    const started = Date.now();
    while (!(await check())) {
      if (Date.now() - started > ms) throw new Error(`not recovered within ${ms} ms`);
      await sleep(100);
    }
    return Date.now() - started;
  }

  it.runIf(DATABASE_URL)('PostgreSQL: terminated connections mid-load give 503 at worst, then service resumes', async () => {
    t = await buildTestApp();
    await t.addUser('demo');
    const token = await t.login('demo', 'alice', PASSWORD);
    const admin = new pg.Client({ connectionString: DATABASE_URL });
    await admin.connect();
    const database = new URL(t.config.databaseUrl!).pathname.slice(1);
    try {
      const statuses: number[] = [];
      let running = true;
      const load = (async () => {
        while (running) {
          const batch = await Promise.all(Array.from({ length: 10 }, () => getUser(t!, token)));
          for (const response of batch) {
            statuses.push(response.statusCode);
            if (response.statusCode === 503) {
              expect(response.body).toBe(UNAVAILABLE);
              expect(response.headers['retry-after']).toBe('5');
            }
          }
        }
      })();
      await sleep(200);
      for (let i = 0; i < 3; i++) {
        await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1', [database]);
        await sleep(100);
      }
      await sleep(300);
      running = false;
      await load;
      expect(statuses.length).toBeGreaterThan(20);
      expect(statuses.filter((status) => status !== 200 && status !== 503)).toEqual([]);

      // The database refuses connections for a while: 503, /ready 503, /health still 200.
      await admin.query(`alter database "${database}" allow_connections false`);
      await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1', [database]);
      // A token verified in the last 500 ms is still known without the database; wait that out.
      await sleep(900);
      const during = await getUser(t, token);
      expect(during.statusCode).toBe(503);
      expect(during.body).toBe(UNAVAILABLE);
      expect((await t.app.inject({ method: 'GET', url: '/ready' })).statusCode).toBe(503);
      expect((await t.app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200);

      await admin.query(`alter database "${database}" allow_connections true`);
      const tookMs = await expectRecoveryWithin(5000, async () => (await getUser(t!, token)).statusCode === 200);
      expect(tookMs).toBeLessThan(5000);
      expect((await t.app.inject({ method: 'GET', url: '/ready' })).statusCode).toBe(200);
    } finally {
      await admin.query(`alter database "${database}" allow_connections true`).catch(() => undefined);
      await admin.end();
    }
  });

  it('SQLite: a missing tenant file gives 503 until it is back', async () => {
    t = await buildTestApp({ DATABASE_URL: '' });
    await t.addTenant('acme');
    await t.addUser('acme');
    const token = await t.login('acme', 'alice', PASSWORD);
    // Close every open handle, so the next request has to open the file again.
    await t.storage.close();
    const file = join(t.dataDir, 'tenants', 'acme.sqlite');
    const { createSqliteStorage } = await import('../../src/db/sqlite.js');
    const { buildApp } = await import('../../src/app.js');
    const storage = createSqliteStorage({ dataDir: t.dataDir, tenantCacheSize: 10 });
    const app = await buildApp(t.config, { storage });
    try {
      renameSync(file, `${file}.away`);
      const response = await app.inject({ method: 'GET', url: '/api/user', headers: { ...JSON_HEADERS, host: hostOf('acme'), authorization: `Bearer ${token}` } });
      expect(response.statusCode).toBe(503);
      expect(response.body).toBe(UNAVAILABLE);
      expect(response.headers['retry-after']).toBe('5');
      renameSync(`${file}.away`, file);
      const again = await app.inject({ method: 'GET', url: '/api/user', headers: { ...JSON_HEADERS, host: hostOf('acme'), authorization: `Bearer ${token}` } });
      expect(again.statusCode).toBe(200);
    } finally {
      await app.close();
      await storage.close();
      t.storage = createSqliteStorage({ dataDir: t.dataDir, tenantCacheSize: 10 });
    }
  });

  it('SQLite: a database locked by another process gives 503 for writes, and reads go on', async () => {
    t = await buildTestApp({ DATABASE_URL: '' });
    await t.addUser('demo');
    const token = await t.login('demo', 'alice', PASSWORD);
    const locker = new BetterSqlite3(join(t.dataDir, 'tenants', 'demo.sqlite'));
    try {
      locker.exec('begin exclusive');
      const login = await t.app.inject({
        method: 'POST',
        url: '/api/login',
        headers: { ...JSON_HEADERS, host: hostOf('demo') },
        payload: { username: 'alice', password: PASSWORD },
      });
      expect(login.statusCode).toBe(503);
      expect(login.body).toBe(UNAVAILABLE);
      expect((await getUser(t, token)).statusCode).toBe(200);
    } finally {
      locker.exec('rollback');
      locker.close();
    }
    expect((await t.login('demo', 'alice', PASSWORD)).length).toBeGreaterThan(0);
  }, 20_000);
});
