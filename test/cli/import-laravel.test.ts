import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, MysqlDialect, PostgresDialect, SqliteDialect } from 'kysely';
import { createConnection, createPool } from 'mysql2/promise';
import { createPool as createCallbackPool } from 'mysql2';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, hostOf, JSON_HEADERS, type TestApp } from '../helpers/app.js';
import { buildLaravelSource, type SourceDialect } from '../helpers/laravel-source.js';
import { runCli } from '../helpers/processes.js';
import { ImportError, importFromLaravel } from '../../src/modules/laravel-import/rules.js';
import { createTestDatabase, DATABASE_URL } from '../helpers/services.js';

const MYSQL_URL = process.env.MYSQL_URL || undefined;

interface Source {
  url: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  db: Kysely<any>;
  drop(): Promise<void>;
}

const sources: { dialect: SourceDialect; enabled: boolean; open(): Promise<Source> }[] = [
  {
    dialect: 'sqlite',
    enabled: true,
    open: async () => {
      const dir = mkdtempSync(join(tmpdir(), 'laravel-'));
      const path = join(dir, 'database.sqlite');
      const db = new Kysely({ dialect: new SqliteDialect({ database: new BetterSqlite3(path) }) });
      return { url: `sqlite:${path}`, db, drop: async () => rmSync(dir, { recursive: true, force: true }) };
    },
  },
  {
    dialect: 'mysql',
    enabled: MYSQL_URL !== undefined,
    open: async () => {
      const name = `laravel_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
      const admin = await createConnection(MYSQL_URL!);
      await admin.query(`create database \`${name}\``);
      await admin.end();
      const url = `${MYSQL_URL!.replace(/\/$/, '')}/${name}`;
      const db = new Kysely({ dialect: new MysqlDialect({ pool: createCallbackPool({ uri: url, connectionLimit: 2 }) }) });
      return {
        url,
        db,
        drop: async () => {
          const pool = createPool(MYSQL_URL!);
          await pool.query(`drop database if exists \`${name}\``);
          await pool.end();
        },
      };
    },
  },
  {
    dialect: 'postgres',
    enabled: DATABASE_URL !== undefined,
    open: async () => {
      const database = await createTestDatabase();
      const db = new Kysely({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: database.url, max: 2 }) }) });
      return { url: database.url, db, drop: database.drop };
    },
  },
];

describe.each(sources)('groupadmin import laravel from $dialect', ({ dialect, enabled, open }) => {
  let t: TestApp;
  let source: Source;
  let env: Record<string, string>;
  beforeEach(async () => {
    if (!enabled) return;
    t = await buildTestApp();
    await t.addTenant('acme');
    source = await open();
    env = { DATA_DIR: t.dataDir, DATABASE_URL: t.config.databaseUrl ?? '' };
  });
  afterEach(async () => {
    if (!enabled) return;
    await source.db.destroy();
    await source.drop();
    await t.close();
  });

  const post = (payload: object) =>
    t.app.inject({ method: 'POST', url: '/api/login', headers: { ...JSON_HEADERS, host: hostOf('acme') }, payload });
  const getUser = (token: string) =>
    t.app.inject({ method: 'GET', url: '/api/user', headers: { ...JSON_HEADERS, host: hostOf('acme'), authorization: `Bearer ${token}` } });

  it.runIf(enabled)('keeps ids, passwords and tokens, and a second run changes nothing', async () => {
    const fixture = await buildLaravelSource(source.db, dialect);
    const first = await runCli(['import', 'laravel', 'acme', '--from', source.url], env);
    expect(first.stderr).toContain('users: 3 read');
    expect(first.status).toBe(0);
    expect(first.stdout).toBe(
      'users: 3 read, 3 imported, 0 already present\npersonal_access_tokens: 3 read, 3 imported, 0 already present\n',
    );

    // Every token the old service handed out works unchanged, with or without the checksum.
    for (const token of fixture.tokens) {
      const response = await getUser(token.plain);
      expect(response.statusCode, token.plain).toBe(200);
      expect(response.json().username).toBe(token.username);
    }
    const carol = (await getUser(fixture.tokens[2]!.plain)).json();
    expect(carol).toMatchObject({
      id: 5, city: 'Köln', gender_id: 1, can_swimm: true, is_vegetarian: false,
      created_at: '2023-12-31T23:59:59.000000Z', updated_at: '2024-01-01T00:00:00.000000Z',
    });

    // Every user logs in with the old password (and the bcrypt hash becomes argon2id).
    for (const [username, password] of Object.entries(fixture.passwords)) {
      const response = await post({ username, password });
      expect(response.statusCode, username).toBe(200);
      expect(response.json().api_key.accessToken.id).toBeGreaterThan(7);
    }
    const alice = await t.storage.tenantDb('acme').selectFrom('users').selectAll().where('id', '=', 1).executeTakeFirstOrThrow();
    expect(alice.password).toMatch(/^\$argon2id\$/);

    const second = await runCli(['import', 'laravel', 'acme', '--from', source.url], env);
    expect(second.status).toBe(0);
    expect(second.stdout).toBe(
      'users: 3 read, 0 imported, 3 already present\npersonal_access_tokens: 3 read, 0 imported, 3 already present\n',
    );
    const counts = await t.storage
      .tenantDb('acme')
      .selectFrom('users')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .executeTakeFirstOrThrow();
    expect(Number(counts.count)).toBe(3);
  });

  // Hangul: its sort key is decomposed into jamo, so 255 characters are far over the bound. Not
  // from MariaDB, whose default character set here may not hold Hangul.
  it.runIf(enabled && dialect !== 'mysql')('refuses a name too long for the people lists, naming the row', async () => {
    await buildLaravelSource(source.db, dialect);
    await source.db.updateTable('users').set({ lastname: '한'.repeat(255) }).where('id', '=', 5).execute();
    const result = await runCli(['import', 'laravel', 'acme', '--from', source.url], env);
    expect(result.stderr).toBe('groupadmin: user id 5 ("carol"): the lastname is too long (the name and its sort key take over 1,200 bytes of UTF-8)\n');
    expect(result.status).toBe(1);
    // The batch the row was in is not imported: nothing half-done.
    const users = await t.storage.tenantDb('acme').selectFrom('users').select('id').execute();
    expect(users).toHaveLength(0);
    // Batches before it stay imported (here one row a batch), so a second run goes on from there.
    await expect(importFromLaravel(source.db, t.storage.tenantDb('acme'), { batchSize: 1 })).rejects.toThrow(ImportError);
    const kept = await t.storage.tenantDb('acme').selectFrom('users').select('id').orderBy('id').execute();
    expect(kept.map(({ id }) => Number(id))).toEqual([1, 2]);
  });

  it.runIf(enabled)('refuses a source without a required column, naming it', async () => {
    await buildLaravelSource(source.db, dialect, { omitColumn: 'firstname' });
    const result = await runCli(['import', 'laravel', 'acme', '--from', source.url], env);
    expect(result.status).toBe(1);
    expect(result.stderr).toBe('groupadmin: source table "users" lacks required column(s): firstname\n');
    const users = await t.storage.tenantDb('acme').selectFrom('users').select('id').execute();
    expect(users).toHaveLength(0);
  });
});

describe('groupadmin import laravel, usage', () => {
  it('refuses an unknown URL scheme and a missing tenant with one line', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'import-usage-'));
    try {
      const env = { DATA_DIR: dataDir, DATABASE_URL: '' };
      await runCli(['tenant', 'create', 'acme'], env);
      const scheme = await runCli(['import', 'laravel', 'acme', '--from', 'oracle://x'], env);
      expect(scheme.status).toBe(1);
      expect(scheme.stderr).toContain('unsupported database URL');
      const tenant = await runCli(['import', 'laravel', 'nope', '--from', 'sqlite:/nonexistent.sqlite'], env);
      expect(tenant.stderr).toBe('groupadmin: tenant "nope" not found\n');
      expect((await runCli(['import', 'laravel', 'acme'], env)).status).toBe(2);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
