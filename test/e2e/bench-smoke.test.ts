import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, runProcess } from '../helpers/processes.js';
import { createTestDatabase, DATABASE_URL, REDIS_URL } from '../helpers/services.js';

describe('benchmark script', () => {
  it('runs every scenario for a second against the built server and prints the table', async () => {
    const result = await runProcess(process.execPath, ['bench/run.mjs', '--smoke', '--no-build', '--connections', '10'], {
      env: { PATH: process.env.PATH ?? '' },
      timeoutMs: 120_000,
    });
    expect(result.status, `${result.stdout}\n${result.stderr}`).toBe(0);
    for (const scenario of ['baseline', 'GET /api/user', 'invalid token (401)', 'POST /api/login', 'mix', 'tenants', 'while logins run', 'register-storm: 150 at once, capacity 100', 'summary', 'GET /api/people, region subtree', 'peer: Express 5 + better-sqlite3', 'people of 100,000', 'GET /api/people as CSV, everyone', 'GET /api/people as XLSX, everyone']) {
      expect(result.stdout).toContain(scenario);
    }
    expect(result.stdout).toMatch(/\| req\/s \|/);
    const written = /written to (\S+\.json)/.exec(result.stdout)![1]!;
    expect(written).toMatch(/bench\/results\/smoke-.*\.json$/);
    // The servers ran with the Node flags of `npm start`, so the numbers are those of `npm start`.
    const startScript: string = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts.start;
    const recorded = JSON.parse(readFileSync(written, 'utf8'));
    expect(recorded.options.nodeFlags).toContainEqual(expect.stringMatching(/^--max-semi-space-size=\d+$/));
    expect(startScript).toBe(`node ${recorded.options.nodeFlags.join(' ')} dist/bundle/server.js`);
  }, 150_000);

  // CI's second pass: the benchmark as run for the PostgreSQL + Redis figures, on a database of its own.
  it.skipIf(!DATABASE_URL)('on PostgreSQL + Redis, measures the people page against SQLite in the same run', async () => {
    const database = await createTestDatabase('ga_bench');
    try {
      const result = await runProcess(process.execPath, ['bench/run.mjs', '--smoke', '--no-build', '--connections', '10', '--scenarios', 'people-page-sqlite,register-storm,people-page'], {
        env: { PATH: process.env.PATH ?? '', DATABASE_URL: database.url, ...(REDIS_URL ? { REDIS_URL } : {}) },
        timeoutMs: 120_000,
      });
      expect(result.status, `${result.stdout}\n${result.stderr}`).toBe(0);
      expect(result.stderr).toContain('vacuum analyze');
      const written = /written to (\S+\.json)/.exec(result.stdout)![1]!;
      const recorded = JSON.parse(readFileSync(written, 'utf8'));
      expect(recorded.storage).toBe('postgres');
      // Asked in another order, the scenarios run in the bench's own; SQLite's walk right after
      // PostgreSQL's on a fresh server, which the ratio compares.
      const names: string[] = recorded.results.map((row: { scenario: string }) => row.scenario);
      expect(names.findIndex((name) => name.startsWith('GET /api/people, region subtree'))).toBeLessThan(names.findIndex((name) => name.includes('a fresh server')));
      expect(names.findIndex((name) => name.startsWith('GET /api/people on SQLite'))).toBe(names.findIndex((name) => name.startsWith('GET /api/people on PostgreSQL, a fresh server')) + 1);
      const onPostgres = recorded.results.find((row: { scenario: string }) => row.scenario.startsWith('GET /api/people on PostgreSQL, a fresh server'));
      const onSqlite = recorded.results.find((row: { scenario: string }) => row.scenario.startsWith('GET /api/people on SQLite'));
      expect(onPostgres.requestsPerSecond).toBeGreaterThan(0);
      expect(onSqlite.requestsPerSecond).toBeGreaterThan(0);
      expect(onSqlite.postgresRatio).toBe(Math.round((onPostgres.requestsPerSecond / onSqlite.requestsPerSecond) * 100) / 100);
      expect(onSqlite.scenario).toContain(`PostgreSQL's page ${onSqlite.postgresRatio} x this`);
      // Two instances share the storm on PostgreSQL.
      expect(recorded.results.find((row: { scenario: string }) => row.scenario.startsWith('register-storm')).scenario).toContain('2 instances');
    } finally {
      await database.drop();
    }
  }, 150_000);
});
